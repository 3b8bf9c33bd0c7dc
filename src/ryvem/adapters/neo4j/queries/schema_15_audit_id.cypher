// schema_15_audit_id: every audit entry (a redaction or purge) has a unique id. No parameters.
CREATE CONSTRAINT ryvem_audit_id IF NOT EXISTS FOR (a:AuditEntry) REQUIRE a.id IS UNIQUE
