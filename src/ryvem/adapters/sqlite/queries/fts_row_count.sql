-- fts_row_count: how many rows nodes_fts indexes (bm25()'s N: one docsize row per indexed
-- row). No parameters.
SELECT count(*) FROM nodes_fts_docsize;
