-- search_as_of: Rows valid at :as_of holding every needle in :needles (a JSON list of LIKE patterns,
-- already escaped with '\') in the title or body, newest first; ranked by the domain.
SELECT n.id, n.kind, n.scope, n.title, n.body, n.valid_from FROM nodes n
WHERE {valid}{kinds}{scope}
  AND NOT EXISTS (
    SELECT 1 FROM json_each(:needles) w
    WHERE NOT (ryvem_lower(n.title) LIKE w.value ESCAPE '\'
               OR ryvem_lower(n.body) LIKE w.value ESCAPE '\'))
ORDER BY n.valid_from DESC LIMIT :limit;
