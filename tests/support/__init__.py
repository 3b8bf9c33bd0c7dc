"""Helpers the tests share: running the CLI (in-process or as the installed console script)."""
