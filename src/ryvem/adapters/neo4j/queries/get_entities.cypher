// get_entities: the version of each entity valid at $as_of (current when null).
// Parameters: $node_fields (the domain model's field names, in order), $entities (list of entity ids), $as_of (microseconds or null).
UNWIND $entities AS entity
MATCH (n:Version {entity: entity})
WHERE (CASE WHEN $as_of IS NULL THEN n.valid_to IS NULL ELSE n.valid_from <= $as_of AND (n.valid_to IS NULL OR n.valid_to > $as_of) END)
RETURN [f IN $node_fields | n[f]] AS v
