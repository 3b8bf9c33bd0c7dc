-- vector_rows_after: vectors of a model added after a cache's last row, with what a search
-- filters on. Parameters: :model, :after.
SELECT v.vec_id, v.node_seq, n.kind, n.scope, v.vec
FROM node_vectors v JOIN nodes n ON n.seq = v.node_seq
WHERE v.model = :model AND v.vec_id > :after
ORDER BY v.vec_id;
