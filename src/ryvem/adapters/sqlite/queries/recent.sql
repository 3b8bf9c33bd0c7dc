-- recent: An empty search: the most recent rows valid at :as_of for the filters.
SELECT n.id, n.kind, n.scope, n.title, substr(n.body, 1, 160), 0.0 FROM nodes n
WHERE {valid}{kinds}{scope}
ORDER BY n.valid_from DESC, n.id DESC LIMIT :limit;
