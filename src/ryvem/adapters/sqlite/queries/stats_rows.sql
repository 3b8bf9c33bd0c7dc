-- stats_rows: Rows by state: current, superseded, retired.
SELECT sum(valid_to IS NULL), sum(valid_to IS NOT NULL AND superseded_by IS NOT NULL),
       sum(valid_to IS NOT NULL AND superseded_by IS NULL) FROM nodes;
