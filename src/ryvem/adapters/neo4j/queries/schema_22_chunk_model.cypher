// schema_22_chunk_model: the chunks' model names, so `other_vector_models` finds another
// model's chunks by two range seeks (nothing to read on a store of one model). No parameters.
CREATE INDEX ryvem_chunk_model IF NOT EXISTS FOR (c:Chunk) ON (c.model)
