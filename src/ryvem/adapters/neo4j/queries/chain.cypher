// chain: every version of an entity, oldest first. Parameters: $entity.
MATCH (n:Version {entity: $entity})
RETURN n {.id, .entity, .kind, .scope, .key, .title, .body, .data, .valid_from, .valid_to, .superseded_by, .supersedes, .retired_reason} AS v
ORDER BY n.valid_from, n.id
