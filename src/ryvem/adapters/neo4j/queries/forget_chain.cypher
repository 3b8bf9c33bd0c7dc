// forget_chain: every version of an entity, oldest first, with its link targets (what a purge
// rewrites). Parameters: $node_fields, $entity.
MATCH (n:Version {entity: $entity})
RETURN [f IN $node_fields | n[f]] AS v, coalesce(n.link_targets, []) AS targets
ORDER BY n.valid_from, n.id
