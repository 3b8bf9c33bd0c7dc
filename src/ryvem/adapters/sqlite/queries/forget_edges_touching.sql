-- forget_edges_touching: Every edge (any window) from or to :entity, supersedes excluded.
SELECT {edge_cols} FROM edges e WHERE e.src = :entity AND e.rel != 'supersedes'
UNION
SELECT {edge_cols} FROM edges e WHERE e.dst = :entity AND e.rel != 'supersedes'
ORDER BY 1;
