-- search_rows: the rows a current search ranked, by seq (:seqs, a JSON array; any order).
-- Parameters: :seqs.
SELECT n.seq, n.id, n.kind, n.scope, n.title, n.body
FROM json_each(:seqs) s JOIN nodes n ON n.seq = s.value;
