-- text_posting_kept: one kept phrase's rows and weighted hits (migration_008), or no row.
-- :key  the phrase as the posting cache keys it
SELECT match, at, w FROM text_postings_kept WHERE key = :key;
