// latest_edge: the newest edge (current or closed, by valid_from) of ($src, $dst, $rel).
// Parameters: $src, $dst, $rel.
MATCH (s:Entity {id: $src})-[e:EDGE]->(d:Entity {id: $dst})
WHERE e.rel = $rel
RETURN e {.id, .rel, .data, .valid_from, .valid_to, .recorded_at, .closure_recorded_at, src: s.id, dst: d.id} AS edge
ORDER BY e.valid_from DESC, e.id DESC
LIMIT 1
