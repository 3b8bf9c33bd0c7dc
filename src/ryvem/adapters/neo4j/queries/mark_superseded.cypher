// mark_superseded: set superseded_by on retired versions; returns the ids it set (the caller
// raises Conflict for the others). Locks each row before reading it.
// Parameters: $rows (list of {id, successor}).
UNWIND $rows AS row
MATCH (n:Version {id: row.id})
SET n.lock = true
REMOVE n.lock
WITH n, row
WHERE n.valid_to IS NOT NULL AND n.superseded_by IS NULL
SET n.superseded_by = row.successor
RETURN n.id AS id
