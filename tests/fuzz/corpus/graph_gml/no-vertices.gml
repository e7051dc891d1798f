graph [
  directed 0
]
