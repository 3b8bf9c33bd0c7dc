// await_indexes: wait until every index is online. Parameters: $seconds.
CALL db.awaitIndexes($seconds)
