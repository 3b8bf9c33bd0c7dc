// migrate_01_clocks_versions: system time beside valid time (issue 16), for versions. Rows
// written before it were recorded as they became valid: recorded_at = valid_from and
// closure_recorded_at = valid_to, so every read answers as before. Idempotent (only rows
// without recorded_at), in batches, then noted on the marker node; runs as an auto-commit
// query. No parameters.
MATCH (n:Version)
WHERE n.recorded_at IS NULL
CALL (n) {
  SET n.recorded_at = n.valid_from, n.closure_recorded_at = n.valid_to
} IN TRANSACTIONS OF 10000 ROWS
WITH count(*) AS migrated
MERGE (m:RyvemSchema {name: 'ryvem'})
SET m.migrations = coalesce(m.migrations, []) + ['migrate_01_clocks_versions']
RETURN migrated
