// search_fulltext: current rows matching a Lucene query, best first (ties newest first). The filters and the
// top-$limit sort run on the index's hits before any other property is read, so only the
// rows returned have their title and body fetched (the snippet is cut from that body).
// Parameters: $query (built only from parsed, escaped, quoted terms), $kinds (list; empty =
// all), $scope_exact (or null), $scope_prefix (or null), $limit.
CALL db.index.fulltext.queryNodes('ryvem_text', $query) YIELD node AS n, score
WHERE n:Current
  AND (size($kinds) = 0 OR n.kind IN $kinds)
  AND ($scope_exact IS NULL OR n.scope = $scope_exact) AND ($scope_prefix IS NULL OR n.scope STARTS WITH $scope_prefix)
WITH n, score
ORDER BY score DESC, n.valid_from DESC
LIMIT $limit
RETURN n.id AS id, n.kind AS kind, n.scope AS scope, n.title AS title, n.body AS body, score
