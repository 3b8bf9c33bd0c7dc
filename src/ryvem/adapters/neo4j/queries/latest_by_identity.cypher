// latest_by_identity: lock each identity (a lock node per identity, so two writers of one
// identity serialise), then read its newest version, current or retired.
// Parameters: $node_fields (the domain model's field names, in order), $idents (sorted list of JSON [kind, key, scope]).
UNWIND $idents AS ident
MERGE (l:IdentityLock {ident: ident})
SET l.writes = coalesce(l.writes, 0) + 1
WITH ident
CALL (ident) {
  MATCH (n:Version {ident: ident})
  RETURN n
  ORDER BY n.valid_from DESC
  LIMIT 1
}
RETURN ident, [f IN $node_fields | n[f]] AS v
