// lock_entity: take the write lock of an edge source's endpoint node (created if missing)
// until the transaction ends, so two writes of one source's edges (link, unlink) serialise
// and the second reads the edges the first committed. Parameters: $src (entity id).
MERGE (x:Entity {id: $src})
SET x.lock = true
REMOVE x.lock
