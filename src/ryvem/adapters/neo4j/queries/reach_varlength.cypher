// reach_varlength: entities reachable from $start over current non-supersedes out-edges in at
// most __MAX_HOPS__ hops (a benchmark peer of the level-by-level expand; the bound is an int
// in [1, 10] filled in by cypher.with_bound). DISTINCT end nodes let the planner prune.
// Parameters: $start (entity id).
MATCH (s:Entity {id: $start})-[es:EDGE*1..__MAX_HOPS__]->(n:Entity)
WHERE all(e IN es WHERE e.valid_to IS NULL AND e.rel <> 'supersedes')
RETURN DISTINCT n.id AS id
