-- find_by_key: Versions valid at :as_of with this exact key, any kind, in the scope filter.
SELECT {node_cols} FROM nodes n WHERE n.key = :key AND {valid}{scope}
ORDER BY n.kind, n.scope;
