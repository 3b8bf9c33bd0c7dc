-- latest_edge: The newest edge (current or closed, by valid_from) of (:src, :dst, :rel).
SELECT {edge_cols} FROM edges e
WHERE e.src = :src AND e.rel = :rel AND e.dst = :dst
ORDER BY e.valid_from DESC, e.id DESC LIMIT 1;
