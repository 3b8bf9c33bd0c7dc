// forget_raise_epoch: raise the store's tail epoch by one, in the transaction of a redaction
// that rewrites versions or edges in place (their ids do not change). A planned write checks
// the epoch did not move since it read its context (apply_plan), so a context read — or kept
// by a client — before the redaction never carries rewritten text into a plan or a result.
// Parameters: $tail_epoch (the reserved Tail name, as in write_context).
MERGE (g:Tail {tail: $tail_epoch})
SET g.writes = coalesce(g.writes, 0) + 1
