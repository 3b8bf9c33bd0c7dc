-- vector_other_models: the models other than :model that current rows' vectors are of, each
-- with how many rows (closed rows keep no vectors). Parameters: :model.
SELECT model, count(DISTINCT node_seq) FROM node_vectors WHERE model <> :model GROUP BY model
ORDER BY model;
