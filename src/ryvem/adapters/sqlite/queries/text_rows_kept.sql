-- text_rows_kept: the indexed rows an earlier process kept (migration_008), with the snapshot
-- they were read in; no row when none is kept. No parameters.
SELECT mark, newest, closed, ids, sizes, kind_names, kind_at, scope_names, scope_at, byteorder
FROM text_rows_kept WHERE id = 1;
