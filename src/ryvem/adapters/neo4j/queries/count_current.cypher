// count_current: how many current rows there are. No parameters.
MATCH (n:Current) RETURN count(n) AS current
