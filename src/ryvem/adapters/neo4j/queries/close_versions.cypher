// close_versions: close current versions' windows (their chunk vectors go too); returns the ids it closed (the caller
// raises Conflict for any row that was no longer current). The SET/REMOVE pair takes the
// row's write lock before its window is read, so two closers cannot both win. A closed keyed
// row leaves the link candidates of its key's last segment, so that segment's write count
// goes up by one (as a planned write's does): a write planned on candidates read before —
// including one on a context a client kept — re-plans instead of linking to it (apply_plan).
// Parameters: $rows (list of {id, at, recorded_at, superseded_by, retired_reason}),
// $tail_epoch (as in write_context).
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
CALL (n) {
  WITH n
  WHERE n.key_tail IS NOT NULL
  OPTIONAL MATCH (g:Tail {tail: $tail_epoch})
  MERGE (x:Tail {tail: n.key_tail})
  SET x.writes = coalesce(x.writes, g.writes, 0) + 1
}
RETURN n.id AS id
