-- phrase_scores: every current row holding the FTS5 phrase :match, with its bm25() score for
-- that phrase alone (the same weights as the searches: title 4, key 2, body 1), in no order.
-- Parameters: :match.
SELECT rowid, bm25(nodes_fts, 4.0, 2.0, 1.0) FROM nodes_fts WHERE nodes_fts MATCH :match;
