-- current_edges: Current edges leaving :src, optionally only to :dst and of :rel (NULL: any).
SELECT {edge_cols} FROM edges e
WHERE e.src = :src AND e.valid_to IS NULL
  AND (:dst IS NULL OR e.dst = :dst) AND (:rel IS NULL OR e.rel = :rel);
