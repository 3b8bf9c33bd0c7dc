-- text_window_ends_in: the window's ends (valid_to, closure_recorded_at; NULL while open) of
-- the versions :seqs (a JSON array): an as-of search's posting cache learns which versions it
-- holds as open were closed since it read them. Read from the covering index
-- nodes_search_window. Parameters: :seqs.
SELECT n.seq, n.valid_to, n.closure_recorded_at
FROM json_each(:seqs) s JOIN nodes n INDEXED BY nodes_search_window ON n.seq = s.value;
