-- latest_of_identity: The newest version of (kind, key, scope), current or retired.
SELECT {node_cols} FROM nodes n WHERE n.kind = :kind AND n.key = :key AND n.scope = :scope
ORDER BY n.valid_from DESC LIMIT 1;
