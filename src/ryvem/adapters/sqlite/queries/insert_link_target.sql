-- insert_link_target: One normalised link target of a version.
INSERT OR IGNORE INTO link_targets (version_id, target, tail) VALUES (:version_id, :target, :tail);
