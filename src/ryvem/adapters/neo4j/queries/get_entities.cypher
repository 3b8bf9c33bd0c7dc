// get_entities: the version of each entity valid at $as_of (current when null).
// Parameters: $node_fields (the domain model's field names, in order), $entities (list of entity ids), $as_of (microseconds or null).
// __VALID__(x): visible at ($as_of, $known_at), each microseconds or null (see queries/__init__.py).
UNWIND $entities AS entity
MATCH (n:Version {entity: entity})
WHERE __VALID__(n)
RETURN [f IN $node_fields | n[f]] AS v
