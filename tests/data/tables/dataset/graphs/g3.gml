graph [
  directed 0
  cls "acid"
  node [ id 0 ]
]
