// drop_text_index: drop the current rows' full-text index (its analyzer or fields are not
// what schema_14_text creates: an older ryvem's); bootstrap recreates it. No parameters.
DROP INDEX ryvem_text IF EXISTS
