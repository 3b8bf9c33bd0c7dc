// vector_backlog: the oldest current rows waiting for vectors, with their text.
// Parameters: $limit.
MATCH (n:EmbedPending)
WHERE n.valid_from IS NOT NULL AND n:Current
WITH n ORDER BY n.valid_from LIMIT $limit
RETURN n.id AS id, n.embed_ticket AS ticket, n.title AS title, n.body AS body
