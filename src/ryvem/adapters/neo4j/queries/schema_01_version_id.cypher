// schema_01_version_id: every node version has a unique id. No parameters.
CREATE CONSTRAINT ryvem_version_id IF NOT EXISTS FOR (n:Version) REQUIRE n.id IS UNIQUE
