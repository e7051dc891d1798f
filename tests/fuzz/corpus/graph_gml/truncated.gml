Creator "attn-graph graphs/formats: the same 5-node, 6-edge graph in every format"
graph [
  directed 0
  name "sample"
  node [ id 0 name "a" size 1.0 ]
  node [ id 1 name "b" size 2.0 ]
  node [ id 2 name "c" size 3.0 ]
  node [ id 3 name "d" size 4.0 ]
  node [ id 4 name "e" size 5.0 ]
  edge [ s