// get_versions: versions by id. Parameters: $ids (list of version ids).
UNWIND $ids AS id
MATCH (n:Version {id: id})
RETURN n {.id, .entity, .kind, .scope, .key, .title, .body, .data, .valid_from, .valid_to, .superseded_by, .supersedes, .retired_reason} AS v
