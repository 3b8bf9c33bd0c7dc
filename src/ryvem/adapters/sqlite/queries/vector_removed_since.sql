-- vector_removed_since: the vector ids removed after log position :pos, with their
-- positions. Parameters: :pos.
SELECT pos, vec_id FROM vector_removed WHERE pos > :pos ORDER BY pos;
