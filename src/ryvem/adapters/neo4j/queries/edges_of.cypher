// edges_of: edges touching an entity (either end) valid at $as_of; supersedes excluded. A
// self-loop is returned once. Parameters: $entity, $as_of (microseconds or null).
// __VALID__(x): visible at ($as_of, $known_at), each microseconds or null (see queries/__init__.py).
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
  AND __VALID__(e)
RETURN e {.id, .rel, .data, .valid_from, .valid_to, .recorded_at, .closure_recorded_at, src: s.id, dst: d.id} AS edge
