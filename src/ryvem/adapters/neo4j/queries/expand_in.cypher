// expand_in: one BFS level, inwards: edges arriving at the frontier entities, valid at $as_of,
// whose far end has a version valid at $as_of inside the scope filter.
// Parameters: $frontier (entity ids), $rels (list, or null = every rel but supersedes),
// $as_of (or null), $scope_exact (or null), $scope_prefix (or null).
// __VALID__(x): visible at ($as_of, $known_at), each microseconds or null (see queries/__init__.py).
MATCH (d:Entity)
WHERE d.id IN $frontier
MATCH (d)<-[e:EDGE]-(s:Entity)
WHERE (CASE WHEN $rels IS NULL THEN e.rel <> 'supersedes' ELSE e.rel IN $rels END)
  AND __VALID__(e)
  AND EXISTS {
    MATCH (n:Version {entity: s.id})
    WHERE __VALID__(n)
      AND ($scope_exact IS NULL OR n.scope = $scope_exact) AND ($scope_prefix IS NULL OR n.scope STARTS WITH $scope_prefix)
  }
RETURN e.id AS id, e.rel AS rel, s.id AS src, d.id AS dst
