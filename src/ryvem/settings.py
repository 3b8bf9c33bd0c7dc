"""Where the graph lives: backend choice and its connection settings, from the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from ryvem.embedding import embedding_wanted
from ryvem.errors import InvalidInput

__all__ = ["Settings"]


@dataclass(frozen=True)
class Settings:
    backend: str = "sqlite"
    data_dir: Path = Path.home() / ".ryvem"
    db: Path | None = None
    neo4j_uri: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: str = ""
    neo4j_database: str | None = None
    neo4j_pool_size: int | None = None
    """Most connections one process keeps to the server (the driver's default, 100, if None)."""

    @property
    def db_path(self) -> Path:
        return self.db if self.db is not None else self.data_dir / "dev.db"

    @classmethod
    def from_env(
        cls, *, backend: str | None = None, db: str | Path | None = None
    ) -> Settings:
        from ryvem.backends import backend_named  # the registry (it imports this module)

        env = os.environ
        chosen = backend_named(backend or env.get("RYVEM_BACKEND") or "sqlite").name
        embedding_wanted(env.get("RYVEM_EMBEDDING"))  # a bad value stops every face at once
        data_dir = Path(env["RYVEM_DATA_DIR"]).expanduser() if env.get("RYVEM_DATA_DIR") else (
            Path.home() / ".ryvem"
        )
        settings = cls(
            backend=chosen,
            data_dir=data_dir,
            neo4j_uri=env.get("RYVEM_NEO4J_URI", cls.neo4j_uri),
            neo4j_user=env.get("RYVEM_NEO4J_USER", cls.neo4j_user),
            neo4j_password=env.get("RYVEM_NEO4J_PASSWORD", ""),
            neo4j_database=env.get("RYVEM_NEO4J_DATABASE") or None,
            neo4j_pool_size=(
                _pool_size(env.get("RYVEM_NEO4J_POOL_SIZE")) if chosen == "neo4j" else None
            ),
        )
        if db is not None:
            if db == "":  # Path("") is the working folder
                raise InvalidInput("the database path is empty; give the path of a SQLite file")
            settings = replace(settings, db=Path(db).expanduser())
        return settings


def _pool_size(value: str | None) -> int | None:
    """RYVEM_NEO4J_POOL_SIZE: unset or empty is None (the driver's default); anything but a
    positive integer is refused (it was dropped in silence: 100 connections, not the 20 meant).
    """
    if value is None or not value.strip():
        return None
    if not value.strip().isdigit() or int(value) < 1:
        raise InvalidInput(
            f"RYVEM_NEO4J_POOL_SIZE must be a positive integer (connections per process), "
            f"got {value!r}"
        )
    return int(value)
