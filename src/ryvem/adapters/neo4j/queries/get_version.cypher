// get_version: versions by id (the adapter asks for one). Parameters: $node_fields (the domain model's field names, in order), $ids (list of version ids).
UNWIND $ids AS id
MATCH (n:Version {id: id})
RETURN [f IN $node_fields | n[f]] AS v
