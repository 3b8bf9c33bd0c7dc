-- iter_edges: A batch of edges after :after, in id order.
SELECT {edge_cols} FROM edges e WHERE e.id > :after ORDER BY e.id LIMIT :batch;
