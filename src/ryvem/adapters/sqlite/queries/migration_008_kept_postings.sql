-- migration_008_kept_postings: what a long-lived search process read of the index of current
-- rows (postings.PostingCache: every indexed row's size, kind and scope, and the rows holding
-- each common word with their weighted hits), kept in the store so that the next process's
-- first search ranks from it instead of walking FTS5's long posting lists. A cache, never the
-- truth: a process uses it only when the store is at most a few thousand rows past it (same
-- newest audit entry; see text_rows_kept.sql), and brings it up to date as it does its own.
-- A forget pass may remove a word from the store: every audit entry empties both tables in
-- the forget's own transaction, so a forgotten word never outlives its text here.
CREATE TABLE text_rows_kept (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    mark   INTEGER NOT NULL,  -- the newest audit entry's rowid when read (postings.Version)
    newest INTEGER NOT NULL,  -- the highest seq of any version when read
    closed INTEGER NOT NULL,  -- versions closed when read (newest less rows indexed)
    ids    BLOB NOT NULL,     -- indexed seqs, ascending: int64, native byte order below
    sizes  BLOB NOT NULL,     -- each row's length in tokens (bm25's D): int32
    kind_names  TEXT NOT NULL,  -- JSON list of the kinds; kind_at indexes it (int32 a row)
    kind_at     BLOB NOT NULL,
    scope_names TEXT NOT NULL,  -- JSON list of the scopes; scope_at indexes it (int32 a row)
    scope_at    BLOB NOT NULL,
    byteorder   TEXT NOT NULL   -- 'little' or 'big': the arrays' byte order
);
CREATE TABLE text_postings_kept (
    key   TEXT PRIMARY KEY,  -- the phrase as the cache keys it (a word: its one token)
    match TEXT NOT NULL,     -- the FTS5 phrase it was read as (finds the same rows)
    at    BLOB NOT NULL,     -- positions in text_rows_kept.ids: int32
    w     BLOB NOT NULL      -- each row's weighted hits: uint16, or float32 when larger
);
CREATE TRIGGER audit_empties_kept_postings AFTER INSERT ON audit BEGIN
    DELETE FROM text_postings_kept;
    DELETE FROM text_rows_kept;
END;
