// current_link_edges: current 'links' edges leaving these entities. Parameters: $sources.
UNWIND $sources AS src
MATCH (s:Entity {id: src})-[e:EDGE]->(d:Entity)
WHERE e.valid_to IS NULL AND e.rel = 'links'
RETURN e {.id, .rel, .data, .valid_from, .valid_to, .recorded_at, .closure_recorded_at, src: s.id, dst: d.id} AS edge
