// recent_as_of: the most recent rows valid at $as_of for the filters (a search without text).
// Parameters: $as_of, $kinds (list; empty = all), $scope_exact (or null),
// $scope_prefix (or null), $limit.
// __VALID__(x): visible at ($as_of, $known_at), each microseconds or null (see queries/__init__.py).
MATCH (n:Version)
WHERE __VALID__(n)
  AND (size($kinds) = 0 OR n.kind IN $kinds)
  AND ($scope_exact IS NULL OR n.scope = $scope_exact) AND ($scope_prefix IS NULL OR n.scope STARTS WITH $scope_prefix)
RETURN n.id AS id, n.kind AS kind, n.scope AS scope, n.title AS title,
       substring(n.body, 0, 160) AS body
ORDER BY n.valid_from DESC, n.id DESC
LIMIT $limit
