"""Unit tests: the pure domain, the SQLite adapter, layering and the public API."""
