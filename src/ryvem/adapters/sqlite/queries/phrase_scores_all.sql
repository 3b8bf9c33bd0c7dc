-- phrase_scores_all: every version (of every time) holding the FTS5 phrase :match, with its
-- bm25() score for that phrase alone in the index of every version's text (the same weights
-- as the searches: title 4, key 2, body 1), in no order. Parameters: :match.
SELECT rowid, bm25(nodes_fts_all, 4.0, 2.0, 1.0) FROM nodes_fts_all
WHERE nodes_fts_all MATCH :match;
