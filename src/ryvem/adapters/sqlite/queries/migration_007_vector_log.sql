-- migration_007_vector_log: what a search's vector cache needs to follow the table after a
-- write without reading every stored id: a log of removed vector ids, by a position that
-- only grows (the newest 65,536 entries kept; a cache that fell further behind reads every
-- id once, as before), and the number of vectors stored, kept by the same triggers.
CREATE TABLE vector_removed (
    pos    INTEGER PRIMARY KEY AUTOINCREMENT,  -- only grows: a cache reads the entries past its last
    vec_id INTEGER NOT NULL
);
ALTER TABLE vector_state ADD COLUMN vectors INTEGER NOT NULL DEFAULT 0;
UPDATE vector_state SET vectors = (SELECT count(*) FROM node_vectors) WHERE id = 1;
DROP TRIGGER node_vectors_added;
DROP TRIGGER node_vectors_removed;
CREATE TRIGGER node_vectors_added AFTER INSERT ON node_vectors BEGIN
    UPDATE vector_state SET generation = generation + 1, vectors = vectors + 1 WHERE id = 1;
END;
CREATE TRIGGER node_vectors_removed AFTER DELETE ON node_vectors BEGIN
    UPDATE vector_state SET generation = generation + 1, vectors = vectors - 1 WHERE id = 1;
    INSERT INTO vector_removed(vec_id) VALUES (old.vec_id);
    -- (max(pos), not sqlite_sequence: that is written when the whole statement ends)
    DELETE FROM vector_removed WHERE pos <= (SELECT max(pos) FROM vector_removed) - 65536;
END;
