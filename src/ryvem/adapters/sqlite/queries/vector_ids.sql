-- vector_ids: the ids of every stored vector, of every model (read through the (node_seq,
-- chunk) covering index, so no blob page is read; a cache keeps the ids it holds).
-- No parameters.
SELECT vec_id FROM node_vectors;
