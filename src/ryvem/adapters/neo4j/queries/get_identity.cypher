// get_identity: the version of an identity valid at $as_of (current when null).
// Parameters: $node_fields (the domain model's field names, in order), $ident (JSON [kind, key, scope]), $as_of (microseconds or null).
// __VALID__(x): visible at ($as_of, $known_at), each microseconds or null (see queries/__init__.py).
MATCH (n:Version {ident: $ident})
WHERE __VALID__(n)
RETURN [f IN $node_fields | n[f]] AS v
ORDER BY n.valid_from DESC
LIMIT 1
