-- mark_superseded: Set superseded_by on a retired (closed, successor-less) version.
UPDATE nodes SET superseded_by = :successor
WHERE id = :id AND superseded_by IS NULL AND valid_to IS NOT NULL;
