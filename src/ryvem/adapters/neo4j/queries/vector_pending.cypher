// vector_pending: how many current rows wait for vectors. No parameters.
MATCH (n:EmbedPending) RETURN count(n) AS pending
