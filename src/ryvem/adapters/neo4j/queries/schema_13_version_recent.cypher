// schema_13_version_recent: rows valid at a past time. No parameters.
CREATE INDEX ryvem_version_recent IF NOT EXISTS FOR (n:Version) ON (n.valid_from)
