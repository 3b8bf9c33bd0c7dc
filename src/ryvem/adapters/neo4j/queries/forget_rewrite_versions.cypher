// forget_rewrite_versions: replace versions' content in place — title, body, data, retire
// reason, link targets, the `erased` mark — and nothing else (no id, kind, key, scope, window or
// chain property is named here). Each row is locked first (SET/REMOVE), so its window is read
// after any writer closing it has committed: a current row gets its full-text fields from the
// new text (the index follows), a closed one none. Its TARGETS relationships are replaced by
// the new tails; returns the ids rewritten and the tails the versions no longer reach.
// Parameters: $rows (list of {id, title, body, data, retired_reason, erased, link_targets,
// ft_title, ft_body, tails}).
UNWIND $rows AS row
MATCH (n:Version {id: row.id})
SET n.lock = true
REMOVE n.lock
WITH n, row
SET n.title = row.title, n.body = row.body, n.data = row.data,
    n.retired_reason = row.retired_reason, n.erased = row.erased,
    n.link_targets = row.link_targets
FOREACH (_ IN CASE WHEN n:Current THEN [1] ELSE [] END |
  SET n.ft_title = row.ft_title, n.ft_body = row.ft_body)
WITH n, row
CALL (n, row) {
  OPTIONAL MATCH (n)-[r:TARGETS]->(t:Tail)
  WHERE NOT t.tail IN row.tails
  DELETE r
  RETURN collect(DISTINCT t.tail) AS dropped
}
FOREACH (t IN row.tails |
  MERGE (x:Tail {tail: t})
  MERGE (n)-[:TARGETS]->(x))
RETURN n.id AS id, dropped
