-- vector_log: the removal log's oldest kept position and the newest ever given (0 and 0 for
-- a store that never removed a vector). No parameters.
SELECT coalesce((SELECT min(pos) FROM vector_removed), 0),
       coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'vector_removed'), 0);
