// search_fulltext: current rows matching a Lucene query, best first (ties newest first). One
// full-text index serves current and as-of search (ryvem_text_all, every version): its hits
// are kept when current (the :Current label, read from the node record), so a commit updates
// one Lucene index, not two, and a write is found by the next search as before. Lucene hands
// over only its best $k hits (by score); the filters and the top-$limit sort run on those
// before any other property is read, so only the rows returned have their title and body
// fetched (the snippet is cut from that body). One row: `fetched` (hits the index handed
// over, < $k when it had no more), `floor` (the lowest score among them) and `rows`, the
// top $limit. The caller asks again with a larger $k unless the answer is exact: every hit
// was fetched, or $limit rows came back and the last scores above `floor` (a hit not
// fetched scores at most `floor`, so none can enter or reorder the top $limit).
// Parameters: $query (built only from parsed, escaped, quoted terms), $k, $kinds (list;
// empty = all), $scope_exact (or null), $scope_prefix (or null), $limit.
CALL db.index.fulltext.queryNodes('ryvem_text_all', $query, {limit: $k}) YIELD node AS n, score
WITH count(*) AS fetched, min(score) AS floor,
     collect(CASE WHEN n:Current
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
