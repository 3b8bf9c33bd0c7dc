// schema_names: the existing indexes and constraints: name, and for a full-text index its
// labels, properties and analyzer (else nulls). No parameters.
SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options
RETURN name,
       CASE WHEN type = 'FULLTEXT' THEN labelsOrTypes END AS labels,
       CASE WHEN type = 'FULLTEXT' THEN properties END AS properties,
       CASE WHEN type = 'FULLTEXT' THEN options.indexConfig.`fulltext.analyzer` END AS analyzer
