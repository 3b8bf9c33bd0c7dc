// close_versions: close current versions' windows (their chunk vectors go too); returns the ids it closed (the caller
// raises Conflict for any row that was no longer current). The SET/REMOVE pair takes the
// row's write lock before its window is read, so two closers cannot both win.
// Parameters: $rows (list of {id, at, recorded_at, superseded_by, retired_reason}).
UNWIND $rows AS row
MATCH (n:Version {id: row.id})
SET n.lock = true
REMOVE n.lock
WITH n, row
WHERE n.valid_to IS NULL
REMOVE n:Current, n:EmbedPending
SET n.valid_to = row.at,
      n.closure_recorded_at = row.recorded_at,
    n.superseded_by = row.superseded_by,
    n.retired_reason = row.retired_reason
WITH n
CALL (n) {
  MATCH (n)-[:CHUNK]->(c:Chunk)
  DETACH DELETE c
}
RETURN n.id AS id
