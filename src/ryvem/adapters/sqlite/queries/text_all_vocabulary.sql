-- text_all_vocabulary: the words of every version's text (stemmed tokens) held by at least
-- :least versions, commonest first, with their counts (text_all_vocabulary_table must exist).
-- Parameters: :least.
SELECT term, doc FROM temp.ryvem_vocabulary_all WHERE doc >= :least ORDER BY doc DESC, term;
