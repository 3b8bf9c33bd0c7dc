-- text_kept_clear: drop whatever an earlier process kept of the index (migration_008), before
-- keeping anew, or when the index is rebuilt. No parameters.
DELETE FROM text_postings_kept;
DELETE FROM text_rows_kept;
