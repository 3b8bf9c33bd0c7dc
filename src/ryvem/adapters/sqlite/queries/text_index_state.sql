-- text_index_state: what a search's posting cache checks its copy against, in one read: how
-- many rows nodes_fts indexes (one docsize row each), the highest indexed seq, FTS5's
-- averages record (varints: rows, then tokens per column: bm25()'s N and average length), the
-- newest audit entry (a text changes in place only inside an audited forget pass), and the
-- highest seq of any version (versions are never deleted, so it only grows).
-- No parameters.
SELECT (SELECT count(*) FROM nodes_fts_docsize),
       (SELECT coalesce(max(id), 0) FROM nodes_fts_docsize),
       (SELECT block FROM nodes_fts_data WHERE id = 1),
       (SELECT coalesce(max(rowid), 0) FROM audit),
       (SELECT coalesce(max(seq), 0) FROM nodes);
