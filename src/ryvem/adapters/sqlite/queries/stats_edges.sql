-- stats_edges: Edges by state: current, closed.
SELECT sum(valid_to IS NULL), sum(valid_to IS NOT NULL) FROM edges;
