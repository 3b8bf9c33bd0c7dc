// latest_of_identity: the newest version of an identity, current or retired.
// Parameters: $node_fields (the domain model's field names, in order), $ident (JSON [kind, key, scope]).
MATCH (n:Version {ident: $ident})
RETURN [f IN $node_fields | n[f]] AS v
ORDER BY n.valid_from DESC
LIMIT 1
