-- forget_audit: Every audit entry, newest first.
SELECT id, at, who, via, action, reason, scope, node, versions, edges FROM audit
ORDER BY at DESC, seq DESC;
