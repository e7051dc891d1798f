Creator "attn-graph"
Version 1
graph
[
  directed 0
  name "Zachary karate club"
  node
  [
    id 0
    name "1"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.906716108322144
    prob1 0.093283899128437
  ]
  node
  [
    id 1
    name "2"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.8969566822052
    prob1 0.103043302893639
  ]
  node
  [
    id 2
    name "3"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.651432454586029
    prob1 0.348567545413971
  ]
  node
  [
    id 3
    name "4"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.924578011035919
    prob1 0.0754219964146614
  ]
  node
  [
    id 4
    name "5"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.931360960006714
    prob1 0.0686390250921249
  ]
  node
  [
    id 5
    name "6"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.926223576068878
    prob1 0.0737764313817024
  ]
  node
  [
    id 6
    name "7"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.927197635173798
    prob1 0.0728023573756218
  ]
  node
  [
    id 7
    name "8"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.916366279125214
    prob1 0.083633728325367
  ]
  node
  [
    id 8
    name "9"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.505598425865173
    prob1 0.494401574134827
  ]
  node
  [
    id 9
    name "10"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.497941017150879
    prob1 0.502058982849121
  ]
  node
  [
    id 10
    name "11"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.932003557682037
    prob1 0.0679964423179626
  ]
  node
  [
    id 11
    name "12"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.91810929775238
    prob1 0.0818907245993614
  ]
  node
  [
    id 12
    name "13"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.944168567657471
    prob1 0.0558314546942711
  ]
  node
  [
    id 13
    name "14"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.831828713417053
    prob1 0.168171286582947
  ]
  node
  [
    id 14
    name "15"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.256902754306793
    prob1 0.743097245693207
  ]
  node
  [
    id 15
    name "16"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.273733377456665
    prob1 0.726266622543335
  ]
  node
  [
    id 16
    name "17"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.928361654281616
    prob1 0.0716383308172226
  ]
  node
  [
    id 17
    name "18"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.922559142112732
    prob1 0.0774408355355263
  ]
  node
  [
    id 18
    name "19"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.285807132720947
    prob1 0.714192867279053
  ]
  node
  [
    id 19
    name "20"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.776234447956085
    prob1 0.223765581846237
  ]
  node
  [
    id 20
    name "21"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.275936007499695
    prob1 0.724063992500305
  ]
  node
  [
    id 21
    name "22"
    club 0
    clubname "Mr. Hi"
    pred "0"
    prob0 0.926956295967102
    prob1 0.0730437263846397
  ]
  node
  [
    id 22
    name "23"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.284250825643539
    prob1 0.715749204158783
  ]
  node
  [
    id 23
    name "24"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.26345306634903
    prob1 0.73654693365097
  ]
  node
  [
    id 24
    name "25"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.402713656425476
    prob1 0.597286343574524
  ]
  node
  [
    id 25
    name "26"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.38882377743721
    prob1 0.611176252365112
  ]
  node
  [
    id 26
    name "27"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.208305269479752
    prob1 0.791694760322571
  ]
  node
  [
    id 27
    name "28"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.390825808048248
    prob1 0.609174191951752
  ]
  node
  [
    id 28
    name "29"
    club 1
    clubname "Officer"
    pred "0"
    prob0 0.552253484725952
    prob1 0.447746515274048
  ]
  node
  [
    id 29
    name "30"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.22731576859951
    prob1 0.772684216499329
  ]
  node
  [
    id 30
    name "31"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.460226595401764
    prob1 0.539773404598236
  ]
  node
  [
    id 31
    name "32"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.436199873685837
    prob1 0.563800156116486
  ]
  node
  [
    id 32
    name "33"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.288016349077225
    prob1 0.711983621120453
  ]
  node
  [
    id 33
    name "34"
    club 1
    clubname "Officer"
    pred "1"
    prob0 0.301630109548569
    prob1 0.698369920253754
  ]
  edge
  [
    source 1
    target 0
    weight 4
  ]
  edge
  [
    source 2
    target 0
    weight 5
  ]
  edge
  [
    source 3
    target 0
    weight 3
  ]
  edge
  [
    source 4
    target 0
    weight 3
  ]
  edge
  [
    source 5
    target 0
    weight 3
  ]
  edge
  [
    source 6
    target 0
    weight 3
  ]
  edge
  [
    source 7
    target 0
    weight 2
  ]
  edge
  [
    source 8
    target 0
    weight 2
  ]
  edge
  [
    source 10
    target 0
    weight 2
  ]
  edge
  [
    source 11
    target 0
    weight 3
  ]
  edge
  [
    source 12
    target 0
    weight 1
  ]
  edge
  [
    source 13
    target 0
    weight 3
  ]
  edge
  [
    source 17
    target 0
    weight 2
  ]
  edge
  [
    source 19
    target 0
    weight 2
  ]
  edge
  [
    source 21
    target 0
    weight 2
  ]
  edge
  [
    source 31
    target 0
    weight 2
  ]
  edge
  [
    source 2
    target 1
    weight 6
  ]
  edge
  [
    source 3
    target 1
    weight 3
  ]
  edge
  [
    source 7
    target 1
    weight 4
  ]
  edge
  [
    source 13
    target 1
    weight 5
  ]
  edge
  [
    source 17
    target 1
    weight 1
  ]
  edge
  [
    source 19
    target 1
    weight 2
  ]
  edge
  [
    source 21
    target 1
    weight 2
  ]
  edge
  [
    source 30
    target 1
    weight 2
  ]
  edge
  [
    source 3
    target 2
    weight 3
  ]
  edge
  [
    source 7
    target 2
    weight 4
  ]
  edge
  [
    source 8
    target 2
    weight 5
  ]
  edge
  [
    source 9
    target 2
    weight 1
  ]
  edge
  [
    source 13
    target 2
    weight 3
  ]
  edge
  [
    source 27
    target 2
    weight 2
  ]
  edge
  [
    source 28
    target 2
    weight 2
  ]
  edge
  [
    source 32
    target 2
    weight 2
  ]
  edge
  [
    source 7
    target 3
    weight 3
  ]
  edge
  [
    source 12
    target 3
    weight 3
  ]
  edge
  [
    source 13
    target 3
    weight 3
  ]
  edge
  [
    source 6
    target 4
    weight 2
  ]
  edge
  [
    source 10
    target 4
    weight 3
  ]
  edge
  [
    source 6
    target 5
    weight 5
  ]
  edge
  [
    source 10
    target 5
    weight 3
  ]
  edge
  [
    source 16
    target 5
    weight 3
  ]
  edge
  [
    source 16
    target 6
    weight 3
  ]
  edge
  [
    source 30
    target 8
    weight 3
  ]
  edge
  [
    source 32
    target 8
    weight 3
  ]
  edge
  [
    source 33
    target 8
    weight 4
  ]
  edge
  [
    source 33
    target 9
    weight 2
  ]
  edge
  [
    source 33
    target 13
    weight 3
  ]
  edge
  [
    source 32
    target 14
    weight 3
  ]
  edge
  [
    source 33
    target 14
    weight 2
  ]
  edge
  [
    source 32
    target 15
    weight 3
  ]
  edge
  [
    source 33
    target 15
    weight 4
  ]
  edge
  [
    source 32
    target 18
    weight 1
  ]
  edge
  [
    source 33
    target 18
    weight 2
  ]
  edge
  [
    source 33
    target 19
    weight 1
  ]
  edge
  [
    source 32
    target 20
    weight 3
  ]
  edge
  [
    source 33
    target 20
    weight 1
  ]
  edge
  [
    source 32
    target 22
    weight 2
  ]
  edge
  [
    source 33
    target 22
    weight 3
  ]
  edge
  [
    source 25
    target 23
    weight 5
  ]
  edge
  [
    source 27
    target 23
    weight 4
  ]
  edge
  [
    source 29
    target 23
    weight 3
  ]
  edge
  [
    source 32
    target 23
    weight 5
  ]
  edge
  [
    source 33
    target 23
    weight 4
  ]
  edge
  [
    source 25
    target 24
    weight 2
  ]
  edge
  [
    source 27
    target 24
    weight 3
  ]
  edge
  [
    source 31
    target 24
    weight 2
  ]
  edge
  [
    source 31
    target 25
    weight 7
  ]
  edge
  [
    source 29
    target 26
    weight 4
  ]
  edge
  [
    source 33
    target 26
    weight 2
  ]
  edge
  [
    source 33
    target 27
    weight 4
  ]
  edge
  [
    source 31
    target 28
    weight 2
  ]
  edge
  [
    source 33
    target 28
    weight 2
  ]
  edge
  [
    source 32
    target 29
    weight 4
  ]
  edge
  [
    source 33
    target 29
    weight 2
  ]
  edge
  [
    source 32
    target 30
    weight 3
  ]
  edge
  [
    source 33
    target 30
    weight 3
  ]
  edge
  [
    source 32
    target 31
    weight 4
  ]
  edge
  [
    source 33
    target 31
    weight 4
  ]
  edge
  [
    source 33
    target 32
    weight 5
  ]
]
