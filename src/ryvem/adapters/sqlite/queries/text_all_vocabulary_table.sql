-- text_all_vocabulary_table: a view of nodes_fts_all's words and how many versions hold each
-- (FTS5's fts5vocab, "row" kind), in the connection's temp schema: the as-of posting filler's
-- own connection creates it once, before it turns query_only on. No parameters.
CREATE VIRTUAL TABLE IF NOT EXISTS temp.ryvem_vocabulary_all
    USING fts5vocab(main, nodes_fts_all, row);
