-- insert_version: One version row; {node_cols_plain} come from the domain model's fields,
-- plus the derived link-resolution columns. {on_conflict} is empty or skips existing ids (copy).
INSERT INTO nodes ({node_cols_plain}, key_norm, key_tail)
VALUES ({node_params}, :key_norm, :key_tail){on_conflict};
