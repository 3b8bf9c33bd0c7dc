// get_entities: the version of each entity valid at $as_of (current when null).
// Parameters: $entities (list of entity ids), $as_of (microseconds or null).
UNWIND $entities AS entity
MATCH (n:Version {entity: entity})
WHERE (CASE WHEN $as_of IS NULL THEN n.valid_to IS NULL ELSE n.valid_from <= $as_of AND (n.valid_to IS NULL OR n.valid_to > $as_of) END)
RETURN n {.id, .entity, .kind, .scope, .key, .title, .body, .data, .valid_from, .valid_to, .superseded_by, .supersedes, .retired_reason} AS v
