// forget_versions_containing: versions in scope (any window) that may hold $text in their
// title, body, retire reason, kind, scope, key (as written or as links compare it) or link
// targets, or $text_json (the text as it appears inside stored JSON) in their data, or whose
// body holds one of $marks (may spell it encoded, domain.spellings); a superset the caller
// checks exactly. Oldest first per entity; a full scan (a rare, deliberate act).
// Parameters: $node_fields, $text, $text_json, $marks, $scope_exact (or null),
// $scope_prefix (or null).
MATCH (n:Version)
WHERE ($scope_exact IS NULL OR n.scope = $scope_exact)
  AND ($scope_prefix IS NULL OR n.scope STARTS WITH $scope_prefix)
  AND (n.title CONTAINS $text OR coalesce(n.body, '') CONTAINS $text
       OR n.data CONTAINS $text_json OR coalesce(n.retired_reason, '') CONTAINS $text
       OR n.kind CONTAINS $text OR n.scope CONTAINS $text
       OR coalesce(n.key, '') CONTAINS $text OR coalesce(n.key_norm, '') CONTAINS $text
       OR any(t IN coalesce(n.link_targets, []) WHERE t CONTAINS $text)
       OR any(m IN $marks WHERE coalesce(n.body, '') CONTAINS m))
RETURN [f IN $node_fields | n[f]] AS v, coalesce(n.link_targets, []) AS targets
ORDER BY n.entity, n.valid_from, n.id
