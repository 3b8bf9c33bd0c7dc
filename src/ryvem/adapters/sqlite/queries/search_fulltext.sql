-- search_fulltext: Current rows matching the FTS5 expression :match (OR-ed quoted terms), best
-- BM25 first (title x4, key x2, body x1), ties newest first by seq: the top :limit as
-- (seq, rank), ranked on the index and the join before any body is read (search_rows reads
-- the rows). Parameters: :match, :limit, and the {kinds}/{scope} fragments' own.
-- The window, kind and scope tests read the covering index nodes_search_window (migration
-- 006), not the rows.
SELECT n.seq, bm25(nodes_fts, 4.0, 2.0, 1.0) AS rank
FROM nodes_fts JOIN nodes n INDEXED BY nodes_search_window ON n.seq = nodes_fts.rowid
WHERE nodes_fts MATCH :match AND n.valid_to IS NULL{kinds}{scope}
ORDER BY rank, n.seq DESC LIMIT :limit;
