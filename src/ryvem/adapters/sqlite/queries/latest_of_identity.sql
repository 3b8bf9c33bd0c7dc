-- latest_of_identity: The newest version of (kind, key, scope), current or retired, among those
-- recorded by :known_at (NULL: all).
SELECT {node_cols} FROM nodes n WHERE n.kind = :kind AND n.key = :key AND n.scope = :scope
  AND (:known_at IS NULL OR n.recorded_at <= :known_at)
ORDER BY n.valid_from DESC LIMIT 1;
