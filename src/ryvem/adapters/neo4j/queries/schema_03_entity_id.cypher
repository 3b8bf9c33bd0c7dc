// schema_03_entity_id: edge endpoints (entity ids; version ids for supersedes). No parameters.
CREATE CONSTRAINT ryvem_entity_id IF NOT EXISTS FOR (x:Entity) REQUIRE x.id IS UNIQUE
