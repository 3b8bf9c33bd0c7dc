// forget_audit: every audit entry, newest first. No parameters.
MATCH (a:AuditEntry)
RETURN a {.id, .at, .who, .via, .action, .reason, .scope, .node, .versions, .edges} AS entry
ORDER BY a.at DESC, a.id DESC
