-- vector_count: how many chunk vectors the store holds, of every model (counted on the
-- (node_seq, chunk) index, so no blob page is read). No parameters.
SELECT count(*) FROM node_vectors;
