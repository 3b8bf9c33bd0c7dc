// schema_10_version_key: bare-key references. No parameters.
CREATE INDEX ryvem_version_key IF NOT EXISTS FOR (n:Version) ON (n.key)
