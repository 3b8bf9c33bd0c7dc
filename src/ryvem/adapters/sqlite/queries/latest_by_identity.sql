-- latest_by_identity: The newest version (current or retired) of each identity in :idents, a JSON list of
-- [kind, key, scope]; one statement for the batch, each through the identity index.
SELECT {node_cols} FROM nodes n WHERE n.id IN (
    SELECT (SELECT m.id FROM nodes m
            WHERE m.kind = w.value ->> 0 AND m.key = w.value ->> 1 AND m.scope = w.value ->> 2
            ORDER BY m.valid_from DESC LIMIT 1)
    FROM json_each(:idents) w);
