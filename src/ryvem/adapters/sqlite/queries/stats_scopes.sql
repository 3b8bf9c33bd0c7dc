-- stats_scopes: Current rows per scope.
SELECT scope, count(*) FROM nodes WHERE valid_to IS NULL GROUP BY scope ORDER BY scope;
