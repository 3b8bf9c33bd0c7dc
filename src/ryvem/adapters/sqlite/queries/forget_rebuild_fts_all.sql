-- forget_rebuild_fts_all: Rewrite the every-version full-text index from `nodes`, so no old
-- segment keeps a rewritten version's words (past-time search reads this index).
INSERT INTO nodes_fts_all(nodes_fts_all) VALUES ('rebuild');
