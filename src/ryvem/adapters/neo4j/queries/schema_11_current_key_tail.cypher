// schema_11_current_key_tail: link candidates by the last segment of a key. No parameters.
CREATE INDEX ryvem_current_key_tail IF NOT EXISTS FOR (n:Current) ON (n.key_tail)
