-- expand_out: Edges leaving the frontier entities (:frontier) valid at :as_of, of {rels}, whose far end
-- is valid then and in scope. INDEXED BY: left alone, the planner answers a scope filter from the
-- scope index and reads every current row of the scope for each edge.
SELECT e.id, e.rel, e.src, e.dst FROM edges e
WHERE e.src IN (SELECT value FROM json_each(:frontier)){rels} AND {valid_e}
  AND EXISTS (SELECT 1 FROM nodes n INDEXED BY nodes_entity
              WHERE n.entity = e.dst AND {valid}{scope});
