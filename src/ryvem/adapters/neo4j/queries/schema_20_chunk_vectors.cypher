// schema_20_chunk_vectors: the vector index over current rows' chunk vectors. No parameters.
// (:Version:Current)-[:CHUNK]->(:Chunk {chunk, model, kind, scope, embedding}); 384
// dimensions (all-MiniLM-L6-v2), cosine, unquantized (scores as exact as SQLite's). Chunks
// are deleted when their version closes.
CREATE VECTOR INDEX ryvem_chunks IF NOT EXISTS FOR (c:Chunk) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false}}
