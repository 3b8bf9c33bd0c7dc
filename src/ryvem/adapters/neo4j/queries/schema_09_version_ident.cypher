// schema_09_version_ident: every version of an identity, current or not. No parameters.
CREATE INDEX ryvem_version_ident IF NOT EXISTS FOR (n:Version) ON (n.ident)
