// forget_drop_tails: delete the Tail nodes among $tails that no version targets any more (a
// rewritten link target's last segment must not outlive it). First it raises the store's tail
// epoch — the write count on the reserved Tail node $tail_epoch, a NUL-prefixed name no link
// target can have (a text holds no NUL) — above every count it deletes: a segment with no
// Tail node counts as the epoch (write_context, apply_plan), so a segment written again later
// starts above any count a planned write read for it before, and that write re-plans instead
// of taking the old count coming back for "nothing moved". Parameters: $tails, $tail_epoch.
OPTIONAL MATCH (t:Tail)
WHERE t.tail IN $tails AND NOT EXISTS { ()-[:TARGETS]->(t) }
WITH collect(t) AS gone, max(coalesce(t.writes, 0)) AS top
CALL (gone, top) {
  WITH gone, top
  WHERE size(gone) > 0
  MERGE (g:Tail {tail: $tail_epoch})
  SET g.writes = CASE WHEN coalesce(g.writes, 0) > top THEN g.writes ELSE top END + 1
}
FOREACH (t IN gone | DELETE t)
