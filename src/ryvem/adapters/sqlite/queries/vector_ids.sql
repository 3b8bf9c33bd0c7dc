-- vector_ids: the ids of every stored vector of a model. Parameters: :model.
SELECT vec_id FROM node_vectors WHERE model = :model;
