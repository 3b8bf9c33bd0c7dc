// get_identity: the version of an identity valid at $as_of (current when null).
// Parameters: $ident (JSON [kind, key, scope]), $as_of (microseconds or null).
MATCH (n:Version {ident: $ident})
WHERE (CASE WHEN $as_of IS NULL THEN n.valid_to IS NULL ELSE n.valid_from <= $as_of AND (n.valid_to IS NULL OR n.valid_to > $as_of) END)
RETURN n {.id, .entity, .kind, .scope, .key, .title, .body, .data, .valid_from, .valid_to, .superseded_by, .supersedes, .retired_reason} AS v
ORDER BY n.valid_from DESC
LIMIT 1
