// link_targets: the normalised link targets stored with a version. Parameters: $id.
MATCH (n:Version {id: $id})
RETURN coalesce(n.link_targets, []) AS targets
