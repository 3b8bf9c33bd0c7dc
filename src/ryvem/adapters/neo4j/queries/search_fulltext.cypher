// search_fulltext: current rows matching a Lucene query, best first.
// Parameters: $query (built only from parsed, escaped, quoted terms), $kinds (list; empty =
// all), $scope_exact (or null), $scope_prefix (or null), $limit.
CALL db.index.fulltext.queryNodes('ryvem_text', $query) YIELD node AS n, score
WHERE n:Current
  AND (size($kinds) = 0 OR n.kind IN $kinds)
  AND ($scope_exact IS NULL OR n.scope = $scope_exact) AND ($scope_prefix IS NULL OR n.scope STARTS WITH $scope_prefix)
RETURN n.id AS id, n.kind AS kind, n.scope AS scope, n.title AS title, n.body AS body, score
ORDER BY score DESC, n.valid_from DESC
LIMIT $limit
