-- text_all_of_rows_after: the indexed text (title, key, body) of the versions nodes_fts_all
-- indexes after seq :after: an as-of search's posting cache tokenizes them on its own to
-- extend what it holds. Parameters: :after.
SELECT d.id, n.title, n.key, n.body
FROM nodes_fts_all_docsize d JOIN nodes n ON n.seq = d.id
WHERE d.id > :after
ORDER BY d.id;
