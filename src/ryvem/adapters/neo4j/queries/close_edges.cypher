// close_edges: close current edges' windows at valid time $at, recorded at $recorded_at.
// Parameters: $ids (edge ids), $at, $recorded_at.
UNWIND $ids AS id
MATCH ()-[e:EDGE {id: id}]->()
WHERE e.valid_to IS NULL
SET e.valid_to = $at, e.closure_recorded_at = $recorded_at
REMOVE e.cur
