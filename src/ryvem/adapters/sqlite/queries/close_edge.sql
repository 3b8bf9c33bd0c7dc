-- close_edge: Close one current edge's window at valid time :at, recorded at :recorded_at.
UPDATE edges SET valid_to = :at, closure_recorded_at = :recorded_at
WHERE id = :id AND valid_to IS NULL;
