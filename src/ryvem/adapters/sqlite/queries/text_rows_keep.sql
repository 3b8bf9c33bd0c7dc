-- text_rows_keep: keep the indexed rows a process read (migration_008; after text_kept_clear).
-- :mark, :newest, :closed  the snapshot they were read in (postings.Version)
-- :ids, :sizes, :kind_names, :kind_at, :scope_names, :scope_at, :byteorder  the arrays
INSERT INTO text_rows_kept(id, mark, newest, closed, ids, sizes, kind_names, kind_at,
                           scope_names, scope_at, byteorder)
VALUES (1, :mark, :newest, :closed, :ids, :sizes, :kind_names, :kind_at, :scope_names,
        :scope_at, :byteorder);
