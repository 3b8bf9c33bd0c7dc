-- targets_of_versions: The link targets of the versions in :ids, in (version, target) order.
SELECT version_id, target FROM link_targets
WHERE version_id IN (SELECT value FROM json_each(:ids)) ORDER BY version_id, target;
