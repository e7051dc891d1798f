graph [
  directed 0
  label 1
  cls "acid"
  node [ id 0 ]
  node [ id 1 ]
  edge [ source 0 target 1 ]
]
