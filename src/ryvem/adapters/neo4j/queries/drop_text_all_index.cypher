// drop_text_all_index: drop the every-version full-text index when its analyzer or fields are
// not what schema_15_text_all creates (an older ryvem's); bootstrap refills the versions'
// text fields and recreates it. No parameters.
DROP INDEX ryvem_text_all IF EXISTS
