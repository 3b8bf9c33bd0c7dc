-- vector_dequeue: take a version off the queue if its ticket is still the one read, and say
-- which row it was (no row: closed or queued again since). Parameters: :id, :ticket.
DELETE FROM embedding_queue
WHERE ticket = :ticket
  AND node_seq = (SELECT seq FROM nodes WHERE id = :id AND valid_to IS NULL)
RETURNING node_seq;
