// schema_06_edge_id: every edge has a unique id. No parameters.
CREATE CONSTRAINT ryvem_edge_id IF NOT EXISTS FOR ()-[e:EDGE]-() REQUIRE e.id IS UNIQUE
