-- text_all_rows_after: the versions nodes_fts_all indexes after seq :after, in seq order, with
-- what an as-of search's posting cache keeps of each: its size in tokens per column (FTS5's
-- docsize blob, varints), its kind, its scope and its window on both clocks (valid_from,
-- valid_to, recorded_at, closure_recorded_at; the ends NULL while open). The window and kind
-- and scope come from the covering index nodes_search_window (migration 006), not the rows.
-- Parameters: :after.
SELECT d.id, d.sz, n.kind, n.scope, n.valid_from, n.valid_to, n.recorded_at,
       n.closure_recorded_at
FROM nodes_fts_all_docsize d JOIN nodes n INDEXED BY nodes_search_window ON n.seq = d.id
WHERE d.id > :after
ORDER BY d.id;
