// forget_rewrite_versions: replace versions' content in place — title, body, data, retire
// reason, link targets, the `erased` mark — and nothing else (no id, kind, key, scope, window or
// chain property is named here). Each row is locked first (SET/REMOVE), so its window is read
// after any writer closing it has committed. Every version's full-text field follows the new
// text (both indexes: current rows and every version): the folded title four times, the key
// twice (lower-cased here; it never changes), the folded body. Its TARGETS relationships are replaced by
// the new tails; returns the ids rewritten and the tails the versions no longer reach. The
// write count of every tail a rewrite drops or (re)targets goes up by one, as a planned write's
// does, so a write planned on what a tail resolved to before the rewrite re-plans (apply_plan).
// Parameters: $rows (list of {id, title, body, data, retired_reason, erased, link_targets,
// ft_head, ft_body, tails}), $tail_epoch (as in write_context).
UNWIND $rows AS row
MATCH (n:Version {id: row.id})
SET n.lock = true
REMOVE n.lock
WITH n, row
SET n.title = row.title, n.body = row.body, n.data = row.data,
    n.retired_reason = row.retired_reason, n.erased = row.erased,
    n.link_targets = row.link_targets
SET n.ft_text = row.ft_head + ' '
    + CASE WHEN n.key IS NULL THEN '' ELSE toLower(n.key) + ' ' + toLower(n.key) + ' ' END
    + row.ft_body
WITH n, row
OPTIONAL MATCH (g:Tail {tail: $tail_epoch})
WITH n, row, coalesce(g.writes, 0) AS epoch
CALL (n, row, epoch) {
  OPTIONAL MATCH (n)-[r:TARGETS]->(t:Tail)
  WHERE NOT t.tail IN row.tails
  SET t.writes = coalesce(t.writes, epoch) + 1
  DELETE r
  RETURN collect(DISTINCT t.tail) AS dropped
}
FOREACH (t IN row.tails |
  MERGE (x:Tail {tail: t})
  SET x.writes = coalesce(x.writes, epoch) + 1
  MERGE (n)-[:TARGETS]->(x))
RETURN n.id AS id, dropped
