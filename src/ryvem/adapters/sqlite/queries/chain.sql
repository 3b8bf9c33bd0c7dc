-- chain: Every version of an entity, oldest first.
SELECT {node_cols} FROM nodes n WHERE n.entity = :entity ORDER BY n.valid_from, n.id;
