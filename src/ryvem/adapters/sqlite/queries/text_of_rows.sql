-- text_of_rows: the indexed text (title, key, body) of the versions :seqs (a JSON array): a
-- ranking that found rows scoring within float noise of each other computes their exact
-- bm25() from it (topk.exact_ranks). Parameters: :seqs.
SELECT n.seq, n.title, n.key, n.body FROM json_each(:seqs) s JOIN nodes n ON n.seq = s.value;
