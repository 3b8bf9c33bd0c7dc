// set_text_fields: set versions' full-text fields (a migration's fill). Parameters: $rows
// (list of {id, ft_title, ft_key, ft_body}).
UNWIND $rows AS row
MATCH (n:Version {id: row.id})
SET n.ft_title = row.ft_title, n.ft_key = row.ft_key, n.ft_body = row.ft_body
