// forget_rewrite_edges: replace edges' data in place (nothing else). Parameters: $rows (list of
// {id, data}).
UNWIND $rows AS row
MATCH ()-[e:EDGE {id: row.id}]->()
SET e.data = row.data
RETURN count(*) AS rewritten
