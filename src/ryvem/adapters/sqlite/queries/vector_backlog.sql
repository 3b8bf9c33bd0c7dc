-- vector_backlog: the oldest queued current versions with their text. Parameters: :limit.
SELECT n.id, q.ticket, n.title, n.body
FROM embedding_queue q JOIN nodes n ON n.seq = q.node_seq
WHERE n.valid_to IS NULL
ORDER BY q.ticket
LIMIT :limit;
