-- text_ids_in: which of the seqs :seqs (a JSON array) nodes_fts still indexes.
-- Parameters: :seqs.
SELECT d.id FROM json_each(:seqs) s JOIN nodes_fts_docsize d ON d.id = s.value;
