// schema_14_text: Lucene full text over current rows' text (title x4, key x2, body). No
// parameters. ft_text holds the text's words as the search parser splits them — the title
// four times, the key twice, then the body: one field, so one BM25 length, as FTS5's bm25 —
// lowercased and without diacritics (folded in Python: Lucene's English analyzer does not
// fold). Every version keeps it; a row leaves this index when its window closes (it loses
// :Current). The `english` analyzer stems (Porter, as SQLite's FTS5 `porter`) and drops its
// 33 stop words.
CREATE FULLTEXT INDEX ryvem_text IF NOT EXISTS FOR (n:Current) ON EACH [n.ft_text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
