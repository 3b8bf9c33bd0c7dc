// edges_of: edges touching an entity (either end) valid at $as_of; supersedes excluded. A
// self-loop is returned once. Parameters: $entity, $as_of (microseconds or null).
MATCH (x:Entity {id: $entity})
CALL (x) {
  MATCH (x)-[e:EDGE]->(d:Entity)
  RETURN x AS s, e, d
  UNION
  MATCH (x)<-[e:EDGE]-(s:Entity)
  RETURN s, e, x AS d
}
WITH s, e, d
WHERE e.rel <> 'supersedes'
  AND (CASE WHEN $as_of IS NULL THEN e.valid_to IS NULL
       ELSE e.valid_from <= $as_of AND (e.valid_to IS NULL OR e.valid_to > $as_of) END)
RETURN e {.id, .rel, .data, .valid_from, .valid_to, .recorded_at, .closure_recorded_at, src: s.id, dst: d.id} AS edge
