// count_chunks: how many chunk vectors the store holds. No parameters.
MATCH (c:Chunk) RETURN count(c) AS chunks
