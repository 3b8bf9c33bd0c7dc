// migrations_done: the data migrations this store has had (names), from its marker node.
// No parameters.
OPTIONAL MATCH (m:RyvemSchema {name: 'ryvem'})
RETURN coalesce(m.migrations, []) AS done
