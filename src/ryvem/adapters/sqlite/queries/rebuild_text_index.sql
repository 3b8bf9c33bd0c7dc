-- rebuild_text_index: rebuild both full-text indexes (current rows, every version) from the
-- rows, and drop what a search process kept of the old one (migration_008).
-- No parameters.
INSERT INTO nodes_fts(nodes_fts) VALUES ('rebuild');
INSERT INTO nodes_fts_all(nodes_fts_all) VALUES ('rebuild');
DELETE FROM text_postings_kept;
DELETE FROM text_rows_kept;
