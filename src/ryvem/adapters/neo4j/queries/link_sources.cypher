// link_sources: current rows whose bodies link to a target with one of $tails as last segment.
// Parameters: $tails (list of last segments).
UNWIND $tails AS t
MATCH (:Tail {tail: t})<-[:TARGETS]-(n:Current)
WITH DISTINCT n
RETURN n.entity AS entity, n.kind AS kind, n.scope AS scope,
       coalesce(n.link_targets, []) AS targets
