graph [
 node [ id 0 charge 1e999 ]
]
