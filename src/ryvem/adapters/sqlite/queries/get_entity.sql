-- get_entity: The version of an entity valid at :as_of ({valid}).
SELECT {node_cols} FROM nodes n WHERE n.entity = :entity AND {valid}
ORDER BY n.valid_from DESC LIMIT 1;
