"""Adapters behind the ``GraphRepository`` port, and the one place that picks one."""

from __future__ import annotations

from ryvem.ports import GraphRepository
from ryvem.settings import Settings

__all__ = ["GraphRepository", "open_repository"]


def open_repository(settings: Settings, *, read_only: bool = False) -> GraphRepository:
    """Open the backend the settings name; imports only the adapter it needs."""
    if settings.backend == "neo4j":
        from ryvem.adapters.neo4j import Neo4jRepository

        return Neo4jRepository.connect(
            settings.neo4j_uri,
            settings.neo4j_user,
            settings.neo4j_password,
            settings.neo4j_database,
        )
    from ryvem.adapters.sqlite import SqliteRepository

    return SqliteRepository.open(settings.db_path, read_only=read_only)
