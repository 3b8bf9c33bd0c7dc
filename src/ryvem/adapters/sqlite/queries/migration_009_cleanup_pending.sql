-- migration_009_cleanup_pending: a redaction or purge committed and the cleanup of the store's
-- files after it (checkpoint, VACUUM, checkpoint) not finished yet: one row, written by the
-- forget transaction that rewrote something and deleted once a cleanup completes, so that a
-- later redaction or purge with nothing left to rewrite still finishes it.
CREATE TABLE cleanup_pending (
    id INTEGER PRIMARY KEY CHECK (id = 1)
);
