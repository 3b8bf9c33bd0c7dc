-- search_current: search_fulltext without filters: nodes_fts holds current rows only, so the
-- top :limit are ranked on the index alone (no join; ties newest first by seq). Returns
-- (seq, rank): search_rows reads the rows. Parameters: :match, :limit.
SELECT rowid AS seq, bm25(nodes_fts, 4.0, 2.0, 1.0) AS rank
FROM nodes_fts
WHERE nodes_fts MATCH :match
ORDER BY rank, rowid DESC LIMIT :limit;
