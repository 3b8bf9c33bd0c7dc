// get_identity: the version of an identity valid at $as_of (current when null).
// Parameters: $node_fields (the domain model's field names, in order), $ident (JSON [kind, key, scope]), $as_of (microseconds or null).
MATCH (n:Version {ident: $ident})
WHERE (CASE WHEN $as_of IS NULL THEN n.valid_to IS NULL ELSE n.valid_from <= $as_of AND (n.valid_to IS NULL OR n.valid_to > $as_of) END)
RETURN [f IN $node_fields | n[f]] AS v
ORDER BY n.valid_from DESC
LIMIT 1
