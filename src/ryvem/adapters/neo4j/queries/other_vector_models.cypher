// other_vector_models: the models other than $model that current rows' chunk vectors are of,
// each with how many rows (a closed version keeps no chunks). Written as two ranges so the
// planner seeks ryvem_chunk_model on each side of $model (`<>` would scan every chunk).
// Parameters: $model.
MATCH (c:Chunk)
WHERE c.model < $model OR c.model > $model
MATCH (n:Version:Current)-[:CHUNK]->(c)
RETURN c.model AS model, count(DISTINCT n) AS rows
ORDER BY model
