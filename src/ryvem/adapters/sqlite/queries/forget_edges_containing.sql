-- forget_edges_containing: Edges (any window) whose data may hold :text_json (the text as it
-- appears inside stored JSON) and with an end whose node is in scope; a superset the caller checks.
SELECT {edge_cols} FROM edges e
WHERE instr(e.data, :text_json) > 0
  AND EXISTS (SELECT 1 FROM nodes n WHERE n.entity IN (e.src, e.dst){scope})
ORDER BY e.id;
