// schema_04_tail: one node per link-target last segment. No parameters.
CREATE CONSTRAINT ryvem_tail IF NOT EXISTS FOR (t:Tail) REQUIRE t.tail IS UNIQUE
