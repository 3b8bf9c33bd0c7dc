-- migration_003_vectors: chunk vectors of current rows and the queue of rows waiting for them.
-- Versioned like the text: a current row is queued in the transaction that inserts it, and
-- its vectors (or its place in the queue) go in the transaction that closes its window.
-- Every current row of an existing store is queued (lexical search works meanwhile).
CREATE TABLE node_vectors (
    vec_id   INTEGER PRIMARY KEY AUTOINCREMENT,  -- only grows: a cache reads rows past its last
    node_seq INTEGER NOT NULL,                   -- nodes.seq of a current version
    chunk    INTEGER NOT NULL,                   -- 0.. in the text's order
    model    TEXT    NOT NULL,                   -- the embedder's name: one vector space
    vec      BLOB    NOT NULL,                   -- little-endian float32, unit length
    UNIQUE (node_seq, chunk)
);
CREATE TABLE embedding_queue (
    ticket   INTEGER PRIMARY KEY AUTOINCREMENT,  -- a new ticket each time a row is queued
    node_seq INTEGER NOT NULL UNIQUE
);
-- Bumped on every vector insert or delete: a search's cached matrix is fresh while it holds.
CREATE TABLE vector_state (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    generation INTEGER NOT NULL
);
INSERT INTO vector_state(id, generation) VALUES (1, 0);
CREATE TRIGGER node_vectors_added AFTER INSERT ON node_vectors BEGIN
    UPDATE vector_state SET generation = generation + 1 WHERE id = 1;
END;
CREATE TRIGGER node_vectors_removed AFTER DELETE ON node_vectors BEGIN
    UPDATE vector_state SET generation = generation + 1 WHERE id = 1;
END;
CREATE TRIGGER nodes_vectors_queue AFTER INSERT ON nodes WHEN new.valid_to IS NULL BEGIN
    INSERT OR REPLACE INTO embedding_queue(node_seq) VALUES (new.seq);
END;
CREATE TRIGGER nodes_vectors_close AFTER UPDATE OF valid_to ON nodes
    WHEN old.valid_to IS NULL AND new.valid_to IS NOT NULL BEGIN
    DELETE FROM node_vectors WHERE node_seq = old.seq;
    DELETE FROM embedding_queue WHERE node_seq = old.seq;
END;
-- A text rewritten in place (none today: nodes_immutable refuses it; a redaction may lift
-- that) drops the row's vectors and queues it again with a new ticket, so vectors computed
-- from the old text are refused (StoresVectors.requeue_vectors does the same on request).
CREATE TRIGGER nodes_vectors_text AFTER UPDATE OF title, body ON nodes BEGIN
    DELETE FROM node_vectors WHERE node_seq = new.seq;
    INSERT OR REPLACE INTO embedding_queue(node_seq)
        SELECT new.seq WHERE new.valid_to IS NULL;
END;
INSERT INTO embedding_queue(node_seq) SELECT seq FROM nodes WHERE valid_to IS NULL ORDER BY seq;
