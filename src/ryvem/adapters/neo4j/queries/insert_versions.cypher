// insert_versions: create versions (current ones get :Current; every one its full-text fields) and
// tie each to the last segments of its link targets. A duplicate id, or a second current row
// for one identity, violates a constraint.
// Parameters: $rows (list of {id, props, tails}).
UNWIND $rows AS row
CREATE (n:Version {id: row.id})
SET n += row.props
FOREACH (_ IN CASE WHEN row.props.valid_to IS NULL THEN [1] ELSE [] END |
  SET n:Current, n:EmbedPending, n.embed_ticket = 1)
FOREACH (t IN row.tails |
  MERGE (x:Tail {tail: t})
  CREATE (n)-[:TARGETS]->(x))  // n is new and its tails distinct
