// find_by_key: versions valid at $as_of with this exact key, any kind, in a scope filter.
// Parameters: $node_fields (the domain model's field names, in order), $key, $as_of (or null), $scope_exact (or null), $scope_prefix (or null).
// __VALID__(x): visible at ($as_of, $known_at), each microseconds or null (see queries/__init__.py).
MATCH (n:Version {key: $key})
WHERE __VALID__(n)
  AND ($scope_exact IS NULL OR n.scope = $scope_exact) AND ($scope_prefix IS NULL OR n.scope STARTS WITH $scope_prefix)
RETURN [f IN $node_fields | n[f]] AS v
ORDER BY n.kind, n.scope
