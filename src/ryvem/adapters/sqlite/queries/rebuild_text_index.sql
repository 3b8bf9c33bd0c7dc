-- rebuild_text_index: rebuild the full-text index from the current rows. No parameters.
INSERT INTO nodes_fts(nodes_fts) VALUES ('rebuild');
