-- text_keys_kept: the phrases kept beside the rows kept (migration_008), by key.
-- No parameters.
SELECT key FROM text_postings_kept;
