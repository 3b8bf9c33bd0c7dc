// recent_current: the most recent current rows for the filters (a search without text).
// Parameters: $kinds (list; empty = all), $scope_exact (or null), $scope_prefix (or null),
// $limit.
MATCH (n:Current)
WHERE n.valid_from IS NOT NULL
  AND (size($kinds) = 0 OR n.kind IN $kinds)
  AND ($scope_exact IS NULL OR n.scope = $scope_exact) AND ($scope_prefix IS NULL OR n.scope STARTS WITH $scope_prefix)
RETURN n.id AS id, n.kind AS kind, n.scope AS scope, n.title AS title,
       substring(n.body, 0, 160) AS body
ORDER BY n.valid_from DESC, n.id DESC
LIMIT $limit
