// search_as_of: rows valid at $as_of holding every needle (case-insensitive substring), newest
// first; the past is not in the full-text index. Parameters: $as_of, $needles (lowercased
// strings), $kinds (list; empty = all), $scope_exact (or null), $scope_prefix (or null), $limit.
// __VALID__(x): visible at ($as_of, $known_at), each microseconds or null (see queries/__init__.py).
MATCH (n:Version)
WHERE __VALID__(n)
  AND (size($kinds) = 0 OR n.kind IN $kinds)
  AND ($scope_exact IS NULL OR n.scope = $scope_exact) AND ($scope_prefix IS NULL OR n.scope STARTS WITH $scope_prefix)
  AND all(x IN $needles WHERE toLower(n.title) CONTAINS x OR toLower(n.body) CONTAINS x)
RETURN n.id AS id, n.kind AS kind, n.scope AS scope, n.title AS title, n.body AS body,
       n.valid_from AS valid_from
ORDER BY n.valid_from DESC
LIMIT $limit
