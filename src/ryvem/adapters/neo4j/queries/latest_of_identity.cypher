// latest_of_identity: the newest version of an identity, current or retired, among those
// recorded by $known_at (null: all).
// Parameters: $node_fields (the domain model's field names, in order), $ident (JSON [kind, key, scope]), $known_at.
MATCH (n:Version {ident: $ident})
WHERE $known_at IS NULL OR n.recorded_at <= $known_at
RETURN [f IN $node_fields | n[f]] AS v
ORDER BY n.valid_from DESC
LIMIT 1
