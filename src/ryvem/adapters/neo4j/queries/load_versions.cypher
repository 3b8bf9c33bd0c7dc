// load_versions: insert_versions for a copy: rows whose id exists are skipped; any other
// constraint still fails. Returns how many were created.
// Parameters: $rows (list of {id, props, tails}).
UNWIND $rows AS row
OPTIONAL MATCH (old:Version {id: row.id})
WITH row, old
WHERE old IS NULL
CREATE (n:Version {id: row.id})
SET n += row.props
FOREACH (_ IN CASE WHEN row.props.valid_to IS NULL THEN [1] ELSE [] END |
  SET n:Current, n:EmbedPending, n.embed_ticket = 1)
FOREACH (t IN row.tails |
  MERGE (x:Tail {tail: t})
  CREATE (n)-[:TARGETS]->(x))  // n is new and its tails distinct
RETURN count(*) AS created
