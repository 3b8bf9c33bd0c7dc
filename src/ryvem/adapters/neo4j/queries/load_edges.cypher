// load_edges: insert_edges for a copy: rows whose id exists are skipped; any other
// constraint still fails. Returns how many were created.
// The endpoints are merged once each first ($ends: every distinct src and dst).
// Parameters: $ends, $rows (list of {id, rel, src, dst, data, valid_from, valid_to,
// recorded_at, closure_recorded_at, cur}).
CALL () {
  UNWIND $ends AS endpoint
  MERGE (:Entity {id: endpoint})
}
UNWIND $rows AS row
OPTIONAL MATCH ()-[old:EDGE {id: row.id}]->()
WITH row, old
WHERE old IS NULL
MATCH (s:Entity {id: row.src})
MATCH (d:Entity {id: row.dst})
CREATE (s)-[e:EDGE {id: row.id}]->(d)
SET e.rel = row.rel, e.data = row.data, e.valid_from = row.valid_from,
    e.valid_to = row.valid_to, e.recorded_at = row.recorded_at,
    e.closure_recorded_at = row.closure_recorded_at, e.cur = row.cur
RETURN count(*) AS created
