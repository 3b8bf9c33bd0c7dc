// latest_of_identity: the newest version of an identity, current or retired.
// Parameters: $ident (JSON [kind, key, scope]).
MATCH (n:Version {ident: $ident})
RETURN n {.id, .entity, .kind, .scope, .key, .title, .body, .data, .valid_from, .valid_to, .superseded_by, .supersedes, .retired_reason} AS v
ORDER BY n.valid_from DESC
LIMIT 1
