-- text_vocabulary: the indexed words (stemmed tokens) held by at least :least rows, commonest
-- first, with their row counts (text_vocabulary_table must exist). Parameters: :least.
SELECT term, doc FROM temp.ryvem_vocabulary WHERE doc >= :least ORDER BY doc DESC, term;
