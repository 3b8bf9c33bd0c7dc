// stats_rows: current, superseded and retired row counts. No parameters.
MATCH (n:Version)
RETURN count(CASE WHEN n.valid_to IS NULL THEN 1 END) AS current,
       count(CASE WHEN n.valid_to IS NOT NULL AND n.superseded_by IS NOT NULL THEN 1 END) AS superseded,
       count(CASE WHEN n.valid_to IS NOT NULL AND n.superseded_by IS NULL THEN 1 END) AS retired
