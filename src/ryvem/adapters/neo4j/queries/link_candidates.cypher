// link_candidates: current keyed rows whose normalised key ends in one of $tails.
// Parameters: $tails (list of last segments).
UNWIND $tails AS t
MATCH (n:Current {key_tail: t})
WHERE n.key IS NOT NULL
RETURN n.entity AS entity, n.kind AS kind, n.key AS key, n.scope AS scope
