-- fts_all_row_count: how many versions nodes_fts_all indexes (bm25()'s N for an as-of search).
-- No parameters.
SELECT count(*) FROM nodes_fts_all_docsize;
