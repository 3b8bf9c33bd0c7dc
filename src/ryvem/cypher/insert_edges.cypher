// insert_edges: create edges between entity endpoints. A duplicate id, or a second current
// edge (src, dst, rel), violates a constraint.
// Parameters: $rows (list of {id, rel, src, dst, data, valid_from, valid_to, cur}).
UNWIND $rows AS row
MERGE (s:Entity {id: row.src})
MERGE (d:Entity {id: row.dst})
CREATE (s)-[e:EDGE {id: row.id}]->(d)
SET e.rel = row.rel, e.data = row.data, e.valid_from = row.valid_from,
    e.valid_to = row.valid_to, e.cur = row.cur
