-- text_all_index_state: what an as-of search's posting cache (every version's text,
-- nodes_fts_all) checks its copy against, in one read: how many rows nodes_fts indexes (the
-- current ones: every other version is closed), the highest seq nodes_fts_all indexes, its
-- averages record (varints: rows, then tokens per column: bm25()'s N and average length), the
-- newest audit entry (a text changes in place only inside an audited forget pass), and the
-- highest seq of any version. No parameters.
SELECT (SELECT count(*) FROM nodes_fts_docsize),
       (SELECT coalesce(max(id), 0) FROM nodes_fts_all_docsize),
       (SELECT block FROM nodes_fts_all_data WHERE id = 1),
       (SELECT coalesce(max(rowid), 0) FROM audit),
       (SELECT coalesce(max(seq), 0) FROM nodes);
