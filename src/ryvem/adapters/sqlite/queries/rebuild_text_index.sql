-- rebuild_text_index: rebuild both full-text indexes (current rows, every version) from the rows.
-- No parameters.
INSERT INTO nodes_fts(nodes_fts) VALUES ('rebuild');
INSERT INTO nodes_fts_all(nodes_fts_all) VALUES ('rebuild');
