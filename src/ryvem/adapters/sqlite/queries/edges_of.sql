-- edges_of: Edges touching an entity (either end) valid at :as_of; supersedes excluded.
SELECT {edge_cols} FROM edges e
WHERE e.src = :entity AND e.rel != 'supersedes' AND {valid_e}
UNION ALL
SELECT {edge_cols} FROM edges e
WHERE e.dst = :entity AND e.rel != 'supersedes' AND e.src != e.dst AND {valid_e};
