// schema_15_text_all: Lucene full text over every version's text (title x4, key x2, body) (as-of
// search: the hits are filtered by their window; current search: its :Current hits). No other
// full-text index: one Lucene index updated per commit.
// No parameters.
CREATE FULLTEXT INDEX ryvem_text_all IF NOT EXISTS FOR (n:Version) ON EACH [n.ft_text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
