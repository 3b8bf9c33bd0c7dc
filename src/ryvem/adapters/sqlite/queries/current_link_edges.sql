-- current_link_edges: Current 'links' edges leaving the entities in :sources.
SELECT {edge_cols} FROM edges e
WHERE e.src IN (SELECT value FROM json_each(:sources)) AND e.rel = 'links' AND e.valid_to IS NULL;
