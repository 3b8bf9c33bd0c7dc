// current_edges: current edges leaving one entity, optionally narrowed to a target and rel.
// Parameters: $src, $dst (or null), $rel (or null).
MATCH (s:Entity {id: $src})-[e:EDGE]->(d:Entity)
WHERE e.valid_to IS NULL
  AND ($dst IS NULL OR d.id = $dst)
  AND ($rel IS NULL OR e.rel = $rel)
RETURN e {.id, .rel, .data, .valid_from, .valid_to, .recorded_at, .closure_recorded_at, src: s.id, dst: d.id} AS edge
ORDER BY e.id
