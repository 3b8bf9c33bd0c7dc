-- forget_open_pass: Open the forget pass for the audit entry :audit_id (this transaction only).
INSERT INTO forget_pass (audit_id) VALUES (:audit_id);
