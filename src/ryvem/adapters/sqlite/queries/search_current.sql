-- search_current: search_fulltext without filters: nodes_fts holds current rows only, so the
-- top :limit are ranked on the index alone (no join before the cut; ties newest first by
-- seq), then their rows are read. Parameters: :match, :limit.
SELECT n.id, n.kind, n.scope, n.title, n.body, top.rank
FROM (
    SELECT rowid AS seq, bm25(nodes_fts, 4.0, 2.0, 1.0) AS rank
    FROM nodes_fts
    WHERE nodes_fts MATCH :match
    ORDER BY rank, rowid DESC LIMIT :limit
) top JOIN nodes n ON n.seq = top.seq
ORDER BY top.rank, top.seq DESC;
