// iter_versions: one batch of versions with their link targets, in id order.
// Parameters: $after (the last id of the previous batch, or ''), $batch.
MATCH (n:Version)
WHERE n.id > $after
RETURN n {.id, .entity, .kind, .scope, .key, .title, .body, .data, .valid_from, .valid_to, .superseded_by, .supersedes, .retired_reason} AS v, coalesce(n.link_targets, []) AS targets
ORDER BY n.id
LIMIT $batch
