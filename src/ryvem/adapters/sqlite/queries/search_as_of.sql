-- search_as_of: Rows valid at :as_of matching the FTS5 expression :match in the index of every
-- version's text, ranked as current search is (BM25, title x4, key x2, body x1; ties newest
-- first): the top :limit as (seq, rank), ranked before any body is read (search_rows reads
-- the rows). Parameters: :match, :as_of, :limit, and the {valid}/{kinds}/{scope} fragments'
-- own.
-- The window, kind and scope tests read the covering index nodes_search_window (migration
-- 006), not the rows.
SELECT n.seq, bm25(nodes_fts_all, 4.0, 2.0, 1.0) AS rank
FROM nodes_fts_all JOIN nodes n INDEXED BY nodes_search_window ON n.seq = nodes_fts_all.rowid
WHERE nodes_fts_all MATCH :match AND {valid}{kinds}{scope}
ORDER BY rank, n.seq DESC LIMIT :limit;
