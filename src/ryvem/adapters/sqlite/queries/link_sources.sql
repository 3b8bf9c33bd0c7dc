-- link_sources: Current versions whose bodies link to a target whose last segment is in :tails.
SELECT n.entity, n.kind, n.scope, n.id FROM link_targets t JOIN nodes n ON n.id = t.version_id
WHERE t.tail IN (SELECT value FROM json_each(:tails)) AND n.valid_to IS NULL
GROUP BY n.id;
