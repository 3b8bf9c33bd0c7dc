-- match_count: how many current rows hold the FTS5 phrase :match (its document frequency,
-- what bm25() counts for its idf). Parameters: :match.
SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH :match;
