-- search_fulltext: Current rows matching the FTS5 expression :match (OR-ed quoted terms), best
-- BM25 first (title x4, key x2, body x1), ties newest first. Parameters: :match, :limit, and
-- the {kinds}/{scope} fragments' own.
SELECT n.id, n.kind, n.scope, n.title,
       snippet(nodes_fts, 2, '**', '**', '…', 16), bm25(nodes_fts, 4.0, 2.0, 1.0) AS rank
FROM nodes_fts JOIN nodes n ON n.seq = nodes_fts.rowid
WHERE nodes_fts MATCH :match AND n.valid_to IS NULL{kinds}{scope}
ORDER BY rank, n.valid_from DESC LIMIT :limit;
