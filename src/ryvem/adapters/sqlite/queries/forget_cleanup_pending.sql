-- forget_cleanup_pending: Whether a committed rewrite's cleanup has not finished.
SELECT EXISTS (SELECT 1 FROM cleanup_pending);
