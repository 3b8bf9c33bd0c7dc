-- text_ids: every seq nodes_fts indexes (the docsize table's key: no row or index page of
-- `nodes` is read). No parameters.
SELECT id FROM nodes_fts_docsize;
