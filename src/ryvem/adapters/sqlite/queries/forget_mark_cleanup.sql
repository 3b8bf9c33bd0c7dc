-- forget_mark_cleanup: This transaction rewrote content: the store's files need a cleanup.
INSERT OR IGNORE INTO cleanup_pending(id) VALUES (1);
