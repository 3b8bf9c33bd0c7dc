// schema_14_text: Lucene full text over current rows' title, key and body. No parameters.
// ft_title/ft_key/ft_body hold the text's words as the search parser splits them, lowercased
// and without diacritics (folded in Python: Lucene's English analyzer does not fold); every
// version keeps them, and a row leaves this index when its window closes (it loses :Current).
// The `english` analyzer stems (Porter, as SQLite's FTS5 `porter`) and drops its 33 stop words.
CREATE FULLTEXT INDEX ryvem_text IF NOT EXISTS FOR (n:Current) ON EACH [n.ft_title, n.ft_key, n.ft_body]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
