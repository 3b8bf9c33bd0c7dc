// stats_edges: current and closed edge counts. No parameters.
MATCH ()-[e:EDGE]->()
RETURN count(CASE WHEN e.valid_to IS NULL THEN 1 END) AS current,
       count(CASE WHEN e.valid_to IS NOT NULL THEN 1 END) AS closed
