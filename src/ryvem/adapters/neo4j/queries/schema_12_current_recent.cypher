// schema_12_current_recent: "most recent current rows" listings. No parameters.
CREATE INDEX ryvem_current_recent IF NOT EXISTS FOR (n:Current) ON (n.valid_from)
