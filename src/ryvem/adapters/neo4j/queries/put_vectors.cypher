// put_vectors: store rows' chunk vectors and take them off the queue. Each row's write lock
// is taken before its state is read, so a close or a requeue racing this either happens
// first (the row is skipped: no longer current, or another ticket) or waits for it (and
// then deletes these chunks itself). Returns the ids stored.
// Parameters: $model, $rows (list of {id, ticket, vectors: list of float lists}).
UNWIND $rows AS row
MATCH (n:Version {id: row.id})
SET n.lock = true
REMOVE n.lock
WITH n, row
WHERE n:Current AND n:EmbedPending AND n.embed_ticket = row.ticket
CALL (n) {
  MATCH (n)-[:CHUNK]->(old:Chunk)
  DETACH DELETE old
}
REMOVE n:EmbedPending
WITH n, row
CALL (n, row) {
  UNWIND range(0, size(row.vectors) - 1) AS i
  CREATE (n)-[:CHUNK]->(c:Chunk {chunk: i, model: $model, kind: n.kind, scope: n.scope})
  SET c.embedding = row.vectors[i]
}
RETURN n.id AS id
