// requeue_vectors: drop the chunk vectors of these versions (null: of every current row in
// the scope filter) and queue the current ones again with a new ticket. Returns how many
// were queued. Parameters: $ids (list or null), $scope_exact, $scope_prefix (or null).
MATCH (n:Version)
WHERE ($ids IS NULL OR n.id IN $ids)
  AND ($ids IS NOT NULL OR n:Current)
  AND ($scope_exact IS NULL OR n.scope = $scope_exact)
  AND ($scope_prefix IS NULL OR n.scope STARTS WITH $scope_prefix)
SET n.lock = true
REMOVE n.lock
WITH n
CALL (n) {
  MATCH (n)-[:CHUNK]->(c:Chunk)
  DETACH DELETE c
}
WITH n
WHERE n:Current
SET n:EmbedPending, n.embed_ticket = coalesce(n.embed_ticket, 0) + 1
RETURN count(n) AS queued
