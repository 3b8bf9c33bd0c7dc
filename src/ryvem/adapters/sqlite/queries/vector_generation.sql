-- vector_generation: changes whenever a vector is added or removed. No parameters.
SELECT generation FROM vector_state WHERE id = 1;
