// schema_names: the names of existing indexes and constraints. No parameters.
SHOW INDEXES YIELD name RETURN name
