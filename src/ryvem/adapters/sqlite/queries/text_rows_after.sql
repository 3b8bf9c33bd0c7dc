-- text_rows_after: the rows nodes_fts indexes after seq :after, in seq order, with what a
-- search's posting cache keeps of each: its size in tokens per column (FTS5's docsize blob,
-- varints), its kind and its scope. Parameters: :after.
SELECT d.id, d.sz, n.kind, n.scope
FROM nodes_fts_docsize d JOIN nodes n ON n.seq = d.id
WHERE d.id > :after
ORDER BY d.id;
