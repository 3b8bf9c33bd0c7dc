// schema_21_embed_pending: the embedding queue's order (current rows waiting for vectors
// carry :EmbedPending and a per-row embed_ticket). No parameters.
CREATE INDEX ryvem_embed_pending IF NOT EXISTS FOR (n:EmbedPending) ON (n.valid_from)
