// set_text_fields: set versions' full-text field, removing an older ryvem's fields (a
// migration's fill). Parameters: $rows (list of {id, ft_text}).
UNWIND $rows AS row
MATCH (n:Version {id: row.id})
SET n.ft_text = row.ft_text
REMOVE n.ft_title, n.ft_body, n.ft_key
