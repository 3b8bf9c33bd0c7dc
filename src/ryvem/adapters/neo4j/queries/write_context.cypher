// write_context: everything a write reads before the service plans it, in one query. A read:
// it takes no lock; apply_plan applies the plan only if what this read still holds.
// The newest version (current or retired) of each of $idents; the current rows whose bodies
// link to a target whose last segment is the key tail of an identity without a current
// version ($key_tails: the keys the write may make appear); the link candidates (current
// keyed rows) for $tails and for those rows' targets; the current 'links' edges leaving
// every entity read. And the write count of each last segment the write reads or writes
// (its link targets', its keys' and those rows' targets'), each read before what depends on
// it: apply_plan applies only if none moved (a page and its link target written at the same
// moment each see the other, or one re-plans).
// Parameters: $node_fields (the domain model's field names, in order), $idents (list of JSON
// [kind, key, scope]), $key_tails (list of {ident, tail}), $tails (list of last segments),
// $tail_epoch (the reserved tail holding the store's tail epoch: a segment with no Tail node
// counts as the epoch, see forget_drop_tails; every redaction also raises it, see
// forget_raise_epoch: apply_plan checks it did not move, so nothing a redaction rewrote in
// place reaches a plan read before it).
CALL () {
  OPTIONAL MATCH (g:Tail {tail: $tail_epoch})
  RETURN coalesce(g.writes, 0) AS epoch
}
CALL (epoch) {
  UNWIND $tails + [kt IN $key_tails | kt.tail] AS t
  WITH DISTINCT t, epoch
  OPTIONAL MATCH (x:Tail {tail: t})
  RETURN collect([t, coalesce(x.writes, epoch)]) AS tail_writes
}
CALL (tail_writes) {
  UNWIND $idents AS ident
  CALL (ident) {
    MATCH (n:Current {ident: ident})  // a current version is the newest: one index seek
    RETURN n
    UNION
    WITH ident
    WHERE NOT EXISTS { MATCH (:Current {ident: ident}) }
    MATCH (n:Version {ident: ident})
    RETURN n
    ORDER BY n.valid_from DESC
    LIMIT 1
  }
  RETURN collect([ident, [f IN $node_fields | n[f]]]) AS latest,
         collect(DISTINCT n.entity) AS entities
}
CALL () {
  UNWIND $key_tails AS kt
  WITH kt
  WHERE NOT EXISTS { MATCH (:Current {ident: kt.ident}) }
  RETURN collect(DISTINCT kt.tail) AS source_tails
}
CALL (source_tails) {
  UNWIND source_tails AS t
  MATCH (:Tail {tail: t})<-[:TARGETS]-(n:Current)
  WITH DISTINCT n
  CALL (n) {
    MATCH (n)-[:TARGETS]->(x:Tail)
    RETURN collect(x.tail) AS its_tails
  }
  RETURN collect([n.entity, n.kind, n.scope, coalesce(n.link_targets, [])]) AS sources,
         collect(n.entity) AS source_entities,
         reduce(acc = [], ts IN collect(its_tails) | acc + ts) AS source_target_tails
}
CALL (source_target_tails) {
  UNWIND source_target_tails AS t
  WITH DISTINCT t
  OPTIONAL MATCH (x:Tail {tail: t})
  RETURN collect([t, coalesce(x.writes, 0)]) AS target_writes
}
WITH epoch, latest, entities, source_tails, sources, source_entities, tail_writes + target_writes
     AS tail_writes, $tails + source_target_tails AS candidate_tails
CALL (candidate_tails) {
  UNWIND candidate_tails AS t
  WITH DISTINCT t
  MATCH (n:Current {key_tail: t})
  WHERE n.key IS NOT NULL
  RETURN collect([n.entity, n.kind, n.key, n.scope]) AS candidates
}
CALL (entities, source_entities) {
  UNWIND entities + source_entities AS src
  WITH DISTINCT src
  MATCH (s:Entity {id: src})-[e:EDGE]->(d:Entity)
  WHERE e.valid_to IS NULL AND e.rel = 'links'
  RETURN collect(e {.id, .rel, .data, .valid_from, .valid_to, .recorded_at, .closure_recorded_at, src: s.id, dst: d.id}) AS link_edges
}
RETURN latest, source_tails, sources, candidate_tails, candidates, link_edges,
       entities + source_entities AS edge_sources, tail_writes, epoch
