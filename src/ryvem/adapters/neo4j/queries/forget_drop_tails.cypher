// forget_drop_tails: delete the Tail nodes among $tails that no version targets any more (a
// rewritten link target's last segment must not outlive it). Parameters: $tails.
UNWIND $tails AS tail
MATCH (t:Tail {tail: tail})
WHERE NOT EXISTS { ()-[:TARGETS]->(t) }
DELETE t
