// get_heads: body-less heads of each entity's version valid at $as_of (current when null).
// Parameters: $head_fields (the NodeHead field names, in order), $entities (list of entity ids), $as_of (microseconds or null).
// __VALID__(x): visible at ($as_of, $known_at), each microseconds or null (see queries/__init__.py).
UNWIND $entities AS entity
MATCH (n:Version {entity: entity})
WHERE __VALID__(n)
RETURN [f IN $head_fields | n[f]] AS h
