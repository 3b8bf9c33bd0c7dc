-- fts_averages: nodes_fts's averages record (varints: rows, then tokens per column: bm25()'s
-- N and average length). No parameters.
SELECT block FROM nodes_fts_data WHERE id = 1;
