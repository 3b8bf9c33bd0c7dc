// search_as_of: rows visible at ($as_of, $known_at) matching a Lucene query in the index of
// every version's text, best first (ties newest first), ranked as current search is. Lucene
// hands over its best $k hits; the filters and the top-$limit sort run on those before the
// text is read. One row: `fetched`, `floor` and `rows`, as search_fulltext (the caller asks
// again with a larger $k unless the answer is exact).
// Parameters: $query (built only from parsed, escaped, quoted terms), $k, $as_of, $known_at
// (microseconds or null; __VALID__(x) is the window predicate, see queries/__init__.py),
// $kinds (list; empty = all), $scope_exact (or null), $scope_prefix (or null), $limit.
CALL db.index.fulltext.queryNodes('ryvem_text_all', $query, {limit: $k}) YIELD node AS n, score
WITH count(*) AS fetched, min(score) AS floor,
     collect(CASE WHEN __VALID__(n)
       AND (size($kinds) = 0 OR n.kind IN $kinds)
       AND ($scope_exact IS NULL OR n.scope = $scope_exact) AND ($scope_prefix IS NULL OR n.scope STARTS WITH $scope_prefix)
       THEN {n: n, score: score} END) AS kept
CALL (kept) {
  UNWIND kept AS hit
  WITH hit.n AS n, hit.score AS score
  ORDER BY score DESC, n.valid_from DESC
  LIMIT $limit
  RETURN collect([n.id, n.kind, n.scope, n.title, n.body, score]) AS rows
}
RETURN fetched, floor, rows
