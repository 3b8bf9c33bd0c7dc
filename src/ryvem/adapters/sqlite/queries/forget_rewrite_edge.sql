-- forget_rewrite_edge: Replace one edge's data in place (only inside an open forget_pass).
UPDATE edges SET data = :data WHERE id = :id;
