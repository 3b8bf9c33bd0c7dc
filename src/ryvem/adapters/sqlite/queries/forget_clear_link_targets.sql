-- forget_clear_link_targets: Drop one version's link targets before its rewritten ones go in.
DELETE FROM link_targets WHERE version_id = :id;
