-- get_identity: The version of (kind, key, scope) valid at :as_of ({valid}: current or as of).
SELECT {node_cols} FROM nodes n
WHERE n.kind = :kind AND n.key = :key AND n.scope = :scope AND {valid}
ORDER BY n.valid_from DESC LIMIT 1;
