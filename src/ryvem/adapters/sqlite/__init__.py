"""The SQLite adapter: the embedded default, one file, no service."""

from ryvem.adapters.sqlite.repository import SqliteRepository

__all__ = ["SqliteRepository"]
