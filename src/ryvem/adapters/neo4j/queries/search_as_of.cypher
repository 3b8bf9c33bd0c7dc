// search_as_of: rows valid at $as_of matching a Lucene query in the index of every version's
// text, best first (ties newest first), ranked as current search is. The filters and the
// top-$limit sort run on the index's hits before the text is read.
// Parameters: $query (built only from parsed, escaped, quoted terms), $as_of, $kinds (list;
// empty = all), $scope_exact (or null), $scope_prefix (or null), $limit.
CALL db.index.fulltext.queryNodes('ryvem_text_all', $query) YIELD node AS n, score
WHERE n.valid_from <= $as_of AND (n.valid_to IS NULL OR n.valid_to > $as_of)
  AND (size($kinds) = 0 OR n.kind IN $kinds)
  AND ($scope_exact IS NULL OR n.scope = $scope_exact) AND ($scope_prefix IS NULL OR n.scope STARTS WITH $scope_prefix)
WITH n, score
ORDER BY score DESC, n.valid_from DESC
LIMIT $limit
RETURN n.id AS id, n.kind AS kind, n.scope AS scope, n.title AS title, n.body AS body, score
