// drop_text_index: drop the current rows' full-text index an older ryvem created (ryvem_text,
// over :Current; current search now reads ryvem_text_all, every version, filtered to current
// rows). No parameters.
DROP INDEX ryvem_text IF EXISTS
