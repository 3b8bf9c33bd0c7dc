// close_edges: close current edges' windows. Parameters: $ids (edge ids), $at.
UNWIND $ids AS id
MATCH ()-[e:EDGE {id: id}]->()
WHERE e.valid_to IS NULL
SET e.valid_to = $at
REMOVE e.cur
