// migrate_02_clocks_edges: system time beside valid time (issue 16), for edges. Rows
// written before it were recorded as they became valid: recorded_at = valid_from and
// closure_recorded_at = valid_to, so every read answers as before. Idempotent (only rows
// without recorded_at), in batches, then noted on the marker node; runs as an auto-commit
// query. No parameters.
MATCH ()-[e:EDGE]->()
WHERE e.recorded_at IS NULL
CALL (e) {
  SET e.recorded_at = e.valid_from, e.closure_recorded_at = e.valid_to
} IN TRANSACTIONS OF 10000 ROWS
WITH count(*) AS migrated
MERGE (m:RyvemSchema {name: 'ryvem'})
SET m.migrations = coalesce(m.migrations, []) + ['migrate_02_clocks_edges']
RETURN migrated
