-- vector_insert: one chunk vector of a current row. Parameters: :seq, :chunk, :model, :vec.
INSERT INTO node_vectors(node_seq, chunk, model, vec) VALUES (:seq, :chunk, :model, :vec);
