// other_vector_models: the models other than $model that current rows' chunk vectors are of,
// each with how many rows (a closed version keeps no chunks). Parameters: $model.
MATCH (n:Version:Current)-[:CHUNK]->(c:Chunk)
WHERE c.model <> $model
RETURN c.model AS model, count(DISTINCT n) AS rows
ORDER BY model
