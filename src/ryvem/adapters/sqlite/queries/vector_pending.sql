-- vector_pending: how many current versions wait for vectors. No parameters.
SELECT count(*) FROM embedding_queue;
