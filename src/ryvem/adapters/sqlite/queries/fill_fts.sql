-- fill_fts: index the rows with :lo <= seq < :hi in both full-text tables (a migration's
-- rebuild, in batches so it can report progress). Parameters: :lo, :hi.
INSERT INTO nodes_fts_all(rowid, title, key, body)
    SELECT seq, title, key, body FROM nodes WHERE seq >= :lo AND seq < :hi;
INSERT INTO nodes_fts(rowid, title, key, body)
    SELECT seq, title, key, body FROM nodes WHERE seq >= :lo AND seq < :hi AND valid_to IS NULL;
