// vector_search: current rows whose chunk vectors of $model are nearest $vector, one row
// each scored by its best chunk (the index's cosine score, (1 + cos) / 2), best first.
// Filters apply to the index's $k nearest chunks (the caller widens $k when they leave too
// few). Parameters: $model, $vector, $k, $kinds (empty = all), $scope_exact, $scope_prefix
// (or null), $limit.
CALL db.index.vector.queryNodes('ryvem_chunks', $k, $vector) YIELD node AS c, score
WHERE c.model = $model
  AND (size($kinds) = 0 OR c.kind IN $kinds)
  AND ($scope_exact IS NULL OR c.scope = $scope_exact)
  AND ($scope_prefix IS NULL OR c.scope STARTS WITH $scope_prefix)
MATCH (n:Current)-[:CHUNK]->(c)
WITH n, max(score) AS score
ORDER BY score DESC, n.valid_from DESC
LIMIT $limit
RETURN n.id AS id, n.kind AS kind, n.scope AS scope, n.title AS title, n.body AS body, score
