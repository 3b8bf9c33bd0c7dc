-- vector_requeue_scope: drop the vectors of every current version in the scope filter and
-- queue them again. Run as two statements by the adapter. Parameters: the {scope} fragment's.
DELETE FROM node_vectors WHERE node_seq IN
    (SELECT n.seq FROM nodes n WHERE n.valid_to IS NULL{scope});
INSERT OR REPLACE INTO embedding_queue(node_seq)
    SELECT n.seq FROM nodes n WHERE n.valid_to IS NULL{scope} ORDER BY n.seq;
