// schema_08_version_entity: a node's history and "the version of an entity at T". No parameters.
CREATE INDEX ryvem_version_entity IF NOT EXISTS FOR (n:Version) ON (n.entity)
