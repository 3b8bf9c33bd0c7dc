// schema_07_edge_one_current: at most one current edge per (src, dst, rel). No parameters.
// Only current edges carry `cur` (a JSON [src, dst, rel]); closing an edge removes it.
CREATE CONSTRAINT ryvem_edge_one_current IF NOT EXISTS FOR ()-[e:EDGE]-() REQUIRE e.cur IS UNIQUE
