-- text_posting_keep: keep one phrase's rows and weighted hits (migration_008).
-- :key, :match, :at, :w  see the table
INSERT INTO text_postings_kept(key, match, at, w) VALUES (:key, :match, :at, :w);
