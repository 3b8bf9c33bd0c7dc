// iter_edges: one batch of edges, in id order.
// Parameters: $after (the last id of the previous batch, or ''), $batch.
MATCH (s:Entity)-[e:EDGE]->(d:Entity)
WHERE e.id > $after
RETURN e {.id, .rel, .data, .valid_from, .valid_to, .recorded_at, .closure_recorded_at, src: s.id, dst: d.id} AS edge
ORDER BY e.id
LIMIT $batch
