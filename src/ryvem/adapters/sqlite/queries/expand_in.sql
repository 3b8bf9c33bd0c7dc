-- expand_in: As expand_out, for edges entering the frontier.
SELECT e.id, e.rel, e.src, e.dst FROM edges e
WHERE e.dst IN (SELECT value FROM json_each(:frontier)){rels} AND {valid_e}
  AND EXISTS (SELECT 1 FROM nodes n INDEXED BY nodes_entity
              WHERE n.entity = e.src AND {valid}{scope});
