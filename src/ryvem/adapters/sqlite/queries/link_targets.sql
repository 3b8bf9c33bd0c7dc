-- link_targets: The normalised link targets stored with one version.
SELECT target FROM link_targets WHERE version_id = :id ORDER BY target;
