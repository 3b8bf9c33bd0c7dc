-- iter_versions: A batch of versions after :after, in id order.
SELECT {node_cols} FROM nodes n WHERE n.id > :after ORDER BY n.id LIMIT :batch;
