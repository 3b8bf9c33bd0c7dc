-- forget_cleanup_done: The store's files were cleaned (after the VACUUM, before the last checkpoint).
DELETE FROM cleanup_pending;
