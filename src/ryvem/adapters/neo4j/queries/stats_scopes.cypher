// stats_scopes: current rows per scope. No parameters.
MATCH (n:Current)
RETURN n.scope AS name, count(*) AS count
ORDER BY name
