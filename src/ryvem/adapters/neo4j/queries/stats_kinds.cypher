// stats_kinds: current rows per kind. No parameters.
MATCH (n:Current)
RETURN n.kind AS name, count(*) AS count
ORDER BY name
