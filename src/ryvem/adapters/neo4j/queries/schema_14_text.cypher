// schema_14_text: Lucene full text over current rows' title and body. No parameters.
// ft_title/ft_body hold the text's words as the search parser splits them, lowercased and
// without diacritics (folded in Python, as query words are), and are removed when a row's
// window closes. The analyzer keeps stop words: "or", "not" are words like any other.
CREATE FULLTEXT INDEX ryvem_text IF NOT EXISTS FOR (n:Current) ON EACH [n.ft_title, n.ft_body]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}}
