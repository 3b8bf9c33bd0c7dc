-- vector_count: how many chunk vectors the store holds, of every model (kept by the
-- node_vectors triggers, migration 007). No parameters.
SELECT vectors FROM vector_state WHERE id = 1;
