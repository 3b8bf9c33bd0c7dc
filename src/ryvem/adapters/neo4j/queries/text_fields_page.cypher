// text_fields_page: a page of versions in id order (the id constraint's index), for filling
// their full-text fields when a store migrates. Parameters: $after (an id, "" to start), $batch.
MATCH (n:Version)
WHERE n.id > $after
RETURN n.id AS id, n.title AS title, n.key AS key, n.body AS body
ORDER BY n.id
LIMIT $batch
