// apply_plan: one write the service planned, applied in one statement, or not at all.
// First it locks what the plan depends on: each identity's lock node ($idents, sorted; the
// same lock latest_by_identity takes, so writers of one identity serialise), the versions it
// closes or marks, the edges it closes and the last segments it read ($tail_expect, sorted,
// counting one more write of each). Then it checks the plan is not stale: no redaction ran
// since write_context read (the tail epoch is still $epoch), each
// identity's newest version is still the one the plan read ($expect; id null = none), no
// last segment was written since write_context read it, every
// version it closes is still current, every retired version it marks still has no
// successor, every edge it closes is still current, and no current edge it does not close
// holds the (src, dst, rel) of an edge it opens. If all holds it closes, marks, inserts versions (with
// their link-target tails), merges the edges' endpoints, closes edges and opens edges, and
// returns one row (a closed version's chunk vectors go with its window; a new current one
// is queued for embedding); if not, it writes nothing and returns no row (the caller re-plans).
// Parameters: $idents (sorted JSON identities), $expect (list of {ident, id}),
// $version_locks (sorted version ids), $edge_locks (sorted edge ids), $closes (list of {id,
// at, recorded_at, superseded_by, retired_reason}), $revives (list of {id, successor}), $versions (list of
// {id, props, tails}), $ends (sorted endpoint entity ids), $edges (list of
// {id, rel, src, dst, data, valid_from, valid_to, recorded_at,
// closure_recorded_at, cur}), $edge_closes (list of {id, at, recorded_at}),
// $tail_expect (list of {tail, writes}, sorted by tail), $tail_epoch (as in write_context),
// $epoch (the tail epoch write_context read: a redaction since then raised it, and the plan
// re-runs).
CALL () {
  UNWIND $idents AS ident
  MERGE (l:IdentityLock {ident: ident})
  SET l.writes = coalesce(l.writes, 0) + 1
}
CALL () {
  UNWIND $version_locks AS id
  MATCH (n:Version {id: id})
  SET n.lock = true
  REMOVE n.lock
}
CALL () {
  UNWIND $edge_locks AS id
  MATCH ()-[e:EDGE {id: id}]->()
  SET e.lock = true
  REMOVE e.lock
}
CALL () {
  OPTIONAL MATCH (g:Tail {tail: $tail_epoch})
  WITH coalesce(g.writes, 0) AS epoch
  UNWIND $tail_expect AS te
  MERGE (x:Tail {tail: te.tail})
  SET x.writes = coalesce(x.writes, epoch) + 1
}
CALL () {
  OPTIONAL MATCH (g:Tail {tail: $tail_epoch})
  RETURN coalesce(g.writes, 0) AS epoch_now
}
CALL () {
  UNWIND $tail_expect AS te
  MATCH (x:Tail {tail: te.tail})
  WHERE x.writes <> te.writes + 1
  RETURN count(*) AS tail_moved
}
CALL () {
  UNWIND $expect AS x
  CALL (x) {
    MATCH (n:Current {ident: x.ident})  // a current version is the newest: one index seek
    RETURN n.id AS latest
    UNION
    WITH x
    WHERE NOT EXISTS { MATCH (:Current {ident: x.ident}) }
    OPTIONAL MATCH (n:Version {ident: x.ident})
    RETURN n.id AS latest
    ORDER BY n.valid_from DESC
    LIMIT 1
  }
  WITH x, latest
  WHERE coalesce(latest, '') <> coalesce(x.id, '')
  RETURN count(*) AS stale
}
CALL () {
  UNWIND $closes AS row
  MATCH (n:Version {id: row.id})
  WHERE n.valid_to IS NULL
  RETURN count(*) AS closable
}
CALL () {
  UNWIND $revives AS row
  MATCH (n:Version {id: row.id})
  WHERE n.valid_to IS NOT NULL AND n.superseded_by IS NULL
  RETURN count(*) AS revivable
}
CALL () {
  UNWIND $edge_closes AS row
  MATCH ()-[e:EDGE {id: row.id}]->()
  WHERE e.valid_to IS NULL
  RETURN count(*) AS edge_closable
}
CALL () {
  UNWIND $edges AS row
  WITH row
  WHERE row.cur IS NOT NULL
  MATCH ()-[e:EDGE {cur: row.cur}]->()
  WHERE NOT e.id IN [c IN $edge_closes | c.id]  // an edge this plan closes is replaced
  RETURN count(*) AS edge_taken
}
WITH *
WHERE stale = 0 AND tail_moved = 0 AND coalesce($epoch, epoch_now) = epoch_now
  AND closable = size($closes) AND revivable = size($revives)
  AND edge_closable = size($edge_closes) AND edge_taken = 0
CALL () {
  UNWIND $closes AS row
  MATCH (n:Version {id: row.id})
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
}
CALL () {
  UNWIND $revives AS row
  MATCH (n:Version {id: row.id})
  SET n.superseded_by = row.successor
}
CALL () {
  UNWIND $versions AS row
  CREATE (n:Version {id: row.id})
  SET n += row.props
  FOREACH (_ IN CASE WHEN row.props.valid_to IS NULL THEN [1] ELSE [] END |
    SET n:Current, n:EmbedPending, n.embed_ticket = 1)
  FOREACH (t IN row.tails |
    MERGE (x:Tail {tail: t})
    CREATE (n)-[:TARGETS]->(x))  // n is new and its tails distinct
}
CALL () {
  UNWIND $ends AS endpoint
  MERGE (:Entity {id: endpoint})
}
CALL () {
  UNWIND $edge_closes AS row
  MATCH ()-[e:EDGE {id: row.id}]->()
  SET e.valid_to = row.at, e.closure_recorded_at = row.recorded_at
  REMOVE e.cur
}
CALL () {
  UNWIND $edges AS row
  MATCH (s:Entity {id: row.src})
  MATCH (d:Entity {id: row.dst})
  CREATE (s)-[e:EDGE {id: row.id}]->(d)
  SET e.rel = row.rel, e.data = row.data, e.valid_from = row.valid_from,
      e.valid_to = row.valid_to, e.recorded_at = row.recorded_at,
      e.closure_recorded_at = row.closure_recorded_at, e.cur = row.cur
}
RETURN true AS applied
