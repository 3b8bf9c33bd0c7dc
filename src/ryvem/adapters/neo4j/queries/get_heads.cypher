// get_heads: body-less heads of each entity's version valid at $as_of (current when null).
// Parameters: $head_fields (the NodeHead field names, in order), $entities (list of entity ids), $as_of (microseconds or null).
UNWIND $entities AS entity
MATCH (n:Version {entity: entity})
WHERE (CASE WHEN $as_of IS NULL THEN n.valid_to IS NULL ELSE n.valid_from <= $as_of AND (n.valid_to IS NULL OR n.valid_to > $as_of) END)
RETURN [f IN $head_fields | n[f]] AS h
