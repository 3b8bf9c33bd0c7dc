-- text_vocabulary_table: a view of nodes_fts's words and how many rows hold each (FTS5's
-- fts5vocab, "row" kind), in the connection's temp schema: the posting filler's own
-- connection creates it once, before it turns query_only on. No parameters.
CREATE VIRTUAL TABLE IF NOT EXISTS temp.ryvem_vocabulary USING fts5vocab(main, nodes_fts, row);
