Creator "attn-graph tests: sodium benzoate written by hand from its SMILES (a salt: two components)"
graph [
  directed 0
  name "sodium_benzoate"
  smiles "[Na+].[O-]C(=O)c1ccccc1"
  node [ id 0 element "Na" atomic_num 11 charge 1 aromatic 0 hydrogens 0 hybridization "S" degree 0 in_ring 0 ]
  node [ id 1 element "O" atomic_num 8 charge -1 aromatic 0 hydrogens 0 hybridization "SP3" degree 1 in_ring 0 ]
  node [ id 2 element "C" atomic_num 6 charge 0 aromatic 0 hydrogens 0 hybridization "SP2" degree 3 in_ring 0 ]
  node [ id 3 element "O" atomic_num 8 charge 0 aromatic 0 hydrogens 0 hybridization "SP2" degree 1 in_ring 0 ]
  node [ id 4 element "C" atomic_num 6 charge 0 aromatic 1 hydrogens 0 hybridization "SP2" degree 3 in_ring 1 ]
  node [ id 5 element "C" atomic_num 6 charge 0 aromatic 1 hydrogens 1 hybridization "SP2" degree 2 in_ring 1 ]
  node [ id 6 element "C" atomic_num 6 charge 0 aromatic 1 hydrogens 1 hybridization "SP2" degree 2 in_ring 1 ]
  node [ id 7 element "C" atomic_num 6 charge 0 aromatic 1 hydrogens 1 hybridization "SP2" degree 2 in_ring 1 ]
  node [ id 8 element "C" atomic_num 6 charge 0 aromatic 1 hydrogens 1 hybridization "SP2" degree 2 in_ring 1 ]
  node [ id 9 element "C" atomic_num 6 charge 0 aromatic 1 hydrogens 1 hybridization "SP2" degree 2 in_ring 1 ]
  edge [ source 1 target 2 bond 1.0 bond_type "SINGLE" conjugated 0 in_ring 0 ]
  edge [ source 2 target 3 bond 2.0 bond_type "DOUBLE" conjugated 1 in_ring 0 ]
  edge [ source 2 target 4 bond 1.0 bond_type "SINGLE" conjugated 1 in_ring 0 ]
  edge [ source 4 target 5 bond 1.5 bond_type "AROMATIC" conjugated 1 in_ring 1 ]
  edge [ source 5 target 6 bond 1.5 bond_type "AROMATIC" conjugated 1 in_ring 1 ]
  edge [ source 6 target 7 bond 1.5 bond_type "AROMATIC" conjugated 1 in_ring 1 ]
  edge [ source 7 target 8 bond 1.5 bond_type "AROMATIC" conjugated 1 in_ring 1 ]
  edge [ source 8 target 9 bond 1.5 bond_type "AROMATIC" conjugated 1 in_ring 1 ]
  edge [ source 4 target 9 bond 1.5 bond_type "AROMATIC" conjugated 1 in_ring 1 ]
]
