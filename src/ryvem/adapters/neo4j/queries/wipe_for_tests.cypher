// wipe_for_tests: delete every node and relationship (schema kept). No parameters.
MATCH (n)
DETACH DELETE n
