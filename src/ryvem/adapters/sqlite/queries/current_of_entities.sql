-- current_of_entities: The current version of each entity in :entities (a JSON list).
SELECT {node_cols} FROM nodes n
WHERE n.entity IN (SELECT value FROM json_each(:entities)) AND n.valid_to IS NULL;
