// forget_record_audit: append one audit entry (never the removed text). Parameters: $entry
// ({id, at, who, via, action, reason, scope, node, versions, edges}).
CREATE (a:AuditEntry {id: $entry.id})
SET a += $entry
