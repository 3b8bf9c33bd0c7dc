-- stats_kinds: Current rows per kind.
SELECT kind, count(*) FROM nodes WHERE valid_to IS NULL GROUP BY kind ORDER BY kind;
