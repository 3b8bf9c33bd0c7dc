-- match_count_all: how many versions (of every time) hold the FTS5 phrase :match in the index
-- of every version's text (what bm25() counts for an as-of search's idf). Parameters: :match.
SELECT count(*) FROM nodes_fts_all WHERE nodes_fts_all MATCH :match;
