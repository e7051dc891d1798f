graph [
  directed 0
  node [ id 0 xs [ a 1 b 2 ] ]
  node [ id 1 ]
  edge [ source 0 target 1 ]
]
