// stats_rels: current edges per rel. No parameters.
MATCH ()-[e:EDGE]->()
WHERE e.valid_to IS NULL
RETURN e.rel AS name, count(*) AS count
ORDER BY name
