// walk_both: everything a walk in both directions can touch, in one query. First the nodes within
// $reach hops of $start: one variable-length pattern with DISTINCT ends, which the planner
// runs as a pruning breadth-first expand (each node once), crossing only edges of the chosen
// rels valid at $as_of into nodes with a version valid at $as_of inside the scope filter
// (the bound __MAX_HOPS__ is an int in [1, 10] filled in by cypher.with_bound; it equals
// $reach unless $reach is 0, when only the start is taken). Then every edge of those rels
// valid at $as_of leaving or arriving at them (each edge once: an edge between two of them
// is met from both ends, and kept once by identity before it is projected), and the head
// valid at $as_of of each end of
// those edges, looked up once per node (the caller drops an edge whose far end has no head
// in scope: one check per node, not per edge).
// The service runs domain.traversal.bfs over this sub-graph, so the walk's rules (order,
// each node once, each edge once) stay in one place and the answer is the level-by-level one.
// Parameters: $start (entity id), $reach (walk depth - 1), $rels (list, or null = every rel
// but supersedes), $as_of (or null), $scope_exact (or null), $scope_prefix (or null),
// $head_fields (the NodeHead field names, in order).
MATCH (s:Entity {id: $start})
CALL (s) {
  RETURN s AS x
  UNION
  WITH s WHERE $reach > 0
  MATCH p = (s)-[es:EDGE*1..__MAX_HOPS__]-(x)
  WHERE all(e IN es WHERE (CASE WHEN $rels IS NULL THEN e.rel <> 'supersedes' ELSE e.rel IN $rels END)
      AND (CASE WHEN $as_of IS NULL THEN e.valid_to IS NULL ELSE e.valid_from <= $as_of AND (e.valid_to IS NULL OR e.valid_to > $as_of) END))
    AND all(b IN nodes(p) WHERE b = s OR EXISTS {
      MATCH (v:Version {entity: b.id})
      WHERE (CASE WHEN $as_of IS NULL THEN v.valid_to IS NULL ELSE v.valid_from <= $as_of AND (v.valid_to IS NULL OR v.valid_to > $as_of) END)
        AND ($scope_exact IS NULL OR v.scope = $scope_exact) AND ($scope_prefix IS NULL OR v.scope STARTS WITH $scope_prefix)
    })
  RETURN DISTINCT x
}
CALL (x) {
  MATCH (x)-[e:EDGE]-()
  WHERE (CASE WHEN $rels IS NULL THEN e.rel <> 'supersedes' ELSE e.rel IN $rels END)
    AND (CASE WHEN $as_of IS NULL THEN e.valid_to IS NULL ELSE e.valid_from <= $as_of AND (e.valid_to IS NULL OR e.valid_to > $as_of) END)
  RETURN e
}
WITH DISTINCT e
WITH collect([e.id, e.rel, startNode(e).id, endNode(e).id]) AS rows
CALL (rows) {
  UNWIND rows AS r
  UNWIND [r[2], r[3]] AS entity
  WITH DISTINCT entity
  MATCH (n:Version {entity: entity})
  WHERE (CASE WHEN $as_of IS NULL THEN n.valid_to IS NULL ELSE n.valid_from <= $as_of AND (n.valid_to IS NULL OR n.valid_to > $as_of) END)
  RETURN collect([f IN $head_fields | n[f]]) AS heads
}
RETURN rows, heads
