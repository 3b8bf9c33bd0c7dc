-- vector_hits: the hit fields of current rows by seq (a vector search's winners).
-- Parameters: :seqs (a JSON array).
SELECT n.seq, n.id, n.kind, n.scope, n.title, n.body
FROM nodes n
WHERE n.seq IN (SELECT value FROM json_each(:seqs)) AND n.valid_to IS NULL;
