// forget_edges_touching: every edge (any window) from or to $entity, supersedes excluded; a
// self-loop once. Parameters: $entity.
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
RETURN e {.id, .rel, .data, .valid_from, .valid_to, src: s.id, dst: d.id} AS edge
ORDER BY e.id
