-- close_edge: Close one current edge's window.
UPDATE edges SET valid_to = :at WHERE id = :id AND valid_to IS NULL;
