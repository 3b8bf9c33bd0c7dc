-- snapshot_start: the first read of a search's transaction, which fixes the snapshot its
-- statements read (a deferred BEGIN takes none until a statement reads), so that PRAGMA
-- data_version asked next speaks of that snapshot. Reads one page of one index.
SELECT 1 FROM nodes_fts_docsize LIMIT 1;
