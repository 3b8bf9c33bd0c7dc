-- fts_all_averages: nodes_fts_all's averages record (varints: rows, then tokens per column:
-- bm25()'s N and average length for an as-of search). No parameters.
SELECT block FROM nodes_fts_all_data WHERE id = 1;
