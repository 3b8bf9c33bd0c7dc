// iter_versions: one batch of versions with their link targets, in id order.
// Parameters: $node_fields (the domain model's field names, in order), $after (the last id of the previous batch, or ''), $batch.
MATCH (n:Version)
WHERE n.id > $after
RETURN [f IN $node_fields | n[f]] AS v, coalesce(n.link_targets, []) AS targets
ORDER BY n.id
LIMIT $batch
