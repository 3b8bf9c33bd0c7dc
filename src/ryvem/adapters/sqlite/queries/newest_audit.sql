-- newest_audit: the newest audit entry's rowid (0 when none): a text changed in place after it
-- only inside a later, audited forget pass. No parameters.
SELECT coalesce(max(rowid), 0) FROM audit;
