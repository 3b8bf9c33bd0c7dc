// schema_02_one_current: at most one current row per (kind, key, scope). No parameters.
// Only current keyed rows carry the :Current label AND an `ident` property, so the store
// itself refuses a second current row for one identity whatever the code does.
CREATE CONSTRAINT ryvem_one_current IF NOT EXISTS FOR (n:Current) REQUIRE n.ident IS UNIQUE
