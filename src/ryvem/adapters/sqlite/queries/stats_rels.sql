-- stats_rels: Current edges per rel.
SELECT rel, count(*) FROM edges WHERE valid_to IS NULL GROUP BY rel ORDER BY rel;
