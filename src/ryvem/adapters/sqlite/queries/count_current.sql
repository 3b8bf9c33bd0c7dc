-- count_current: how many current rows there are. No parameters.
SELECT count(*) FROM nodes WHERE valid_to IS NULL;
