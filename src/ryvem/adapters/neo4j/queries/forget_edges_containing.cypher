// forget_edges_containing: edges (any window) whose data may hold $text_json (the text as it
// appears inside stored JSON) with an end whose node is in scope; a superset the caller checks.
// Parameters: $text_json, $scope_exact (or null), $scope_prefix (or null).
MATCH (s:Entity)-[e:EDGE]->(d:Entity)
WHERE e.data CONTAINS $text_json
  AND EXISTS {
    MATCH (n:Version)
    WHERE n.entity IN [s.id, d.id]
      AND ($scope_exact IS NULL OR n.scope = $scope_exact)
      AND ($scope_prefix IS NULL OR n.scope STARTS WITH $scope_prefix)
  }
RETURN e {.id, .rel, .data, .valid_from, .valid_to, src: s.id, dst: d.id} AS edge
ORDER BY e.id
