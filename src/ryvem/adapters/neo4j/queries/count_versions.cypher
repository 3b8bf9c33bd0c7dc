// count_versions: how many versions the store holds. No parameters.
MATCH (n:Version) RETURN count(n) AS n
