-- close_version: Close one current version's window at valid time :at, recorded at :recorded_at;
-- changes no row when it is no longer current.
UPDATE nodes SET valid_to = :at, closure_recorded_at = :recorded_at,
                 superseded_by = :superseded_by, retired_reason = :retired_reason
WHERE id = :id AND valid_to IS NULL;
