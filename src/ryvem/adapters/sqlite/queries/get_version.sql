-- get_version: One version by id.
SELECT {node_cols} FROM nodes n WHERE n.id = :id;
