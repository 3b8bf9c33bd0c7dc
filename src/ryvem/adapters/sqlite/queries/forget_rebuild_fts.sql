-- forget_rebuild_fts: Rewrite the full-text index from the current rows, so no old segment keeps
-- a rewritten row's words.
INSERT INTO nodes_fts(nodes_fts) VALUES ('rebuild');
