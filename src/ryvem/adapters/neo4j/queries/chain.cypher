// chain: every version of an entity, oldest first. Parameters: $node_fields (the domain model's field names, in order), $entity.
MATCH (n:Version {entity: $entity})
RETURN [f IN $node_fields | n[f]] AS v
ORDER BY n.valid_from, n.id
