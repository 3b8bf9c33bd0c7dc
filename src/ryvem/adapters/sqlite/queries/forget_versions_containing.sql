-- forget_versions_containing: Versions in scope (any window) that may hold :text in their title,
-- body, retire reason, kind, scope, key (as written or as links compare it) or link targets, or
-- :text_json (the text as it appears inside stored JSON) in their data, or whose body holds one
-- of :marks (may spell it encoded, domain.spellings); a superset the caller checks exactly.
-- Oldest first per entity.
SELECT {node_cols} FROM nodes n
WHERE (instr(n.title, :text) > 0 OR instr(n.body, :text) > 0 OR instr(n.data, :text_json) > 0
       OR instr(n.retired_reason, :text) > 0 OR instr(n.kind, :text) > 0
       OR instr(n.scope, :text) > 0 OR instr(n.key, :text) > 0 OR instr(n.key_norm, :text) > 0
       OR EXISTS (SELECT 1 FROM link_targets t
                  WHERE t.version_id = n.id AND instr(t.target, :text) > 0)
       OR EXISTS (SELECT 1 FROM json_each(:marks) m WHERE instr(n.body, m.value) > 0)){scope}
ORDER BY n.entity, n.valid_from, n.id;
