-- vector_requeue_ids: drop these versions' vectors and queue the current ones again (a new
-- ticket each). Run as two statements by the adapter. Parameters: :ids (a JSON array).
DELETE FROM node_vectors WHERE node_seq IN
    (SELECT seq FROM nodes WHERE id IN (SELECT value FROM json_each(:ids)));
INSERT OR REPLACE INTO embedding_queue(node_seq)
    SELECT seq FROM nodes WHERE id IN (SELECT value FROM json_each(:ids)) AND valid_to IS NULL
    ORDER BY seq;
