-- text_of_rows_after: the indexed text (title, key, body) of the rows nodes_fts indexes after
-- seq :after: a posting cache tokenizes them on its own to extend what it holds.
-- Parameters: :after.
SELECT d.id, n.title, n.key, n.body
FROM nodes_fts_docsize d JOIN nodes n ON n.seq = d.id
WHERE d.id > :after
ORDER BY d.id;
