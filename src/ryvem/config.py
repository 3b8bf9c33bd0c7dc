"""Configuration as plain data: every ``RYVEM_*`` variable is read here and nowhere else.

:class:`Settings` is where the graph lives (backend, data dir, database file, Neo4j
connection) and how the process behaves (embedding on or off, the MCP export folder, debug
tracebacks). It imports nothing from ryvem but :mod:`ryvem.errors`; the composition root
(:mod:`ryvem.backends`) builds from it. Adding a variable: a field here, read in
:meth:`Settings.from_env`, and a line where the docs list the
environment (docs/guides/mcp.md, docs/guides/neo4j.md).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ryvem.errors import InvalidInput

__all__ = [
    "BACKEND_NAMES", "EMBEDDING_OFF", "EMBEDDING_ON", "EXPORT_DIR_ENV", "Settings",
    "backend_name", "debug_wanted", "embedding_from_env", "embedding_wanted",
    "export_dir_from_env",
]

BACKEND_NAMES: tuple[str, ...] = ("sqlite", "neo4j")
"""The backends ``RYVEM_BACKEND`` may name (``ryvem.backends.REGISTRY`` opens each)."""
EMBEDDING_OFF = ("off", "0", "false", "no")
EMBEDDING_ON = ("on", "1", "true", "yes")
EXPORT_DIR_ENV = "RYVEM_EXPORT_DIR"


def backend_name(name: str) -> str:
    """A backend's name as registered (case and spaces ignored), else InvalidInput."""
    chosen = str(name).strip().lower()
    if chosen not in BACKEND_NAMES:
        raise InvalidInput(f"unknown backend {name!r}: use {' or '.join(BACKEND_NAMES)}")
    return chosen


def embedding_wanted(value: str | None) -> bool:
    """``RYVEM_EMBEDDING``: False for off (0, false, no), True for on (1, true, yes), unset or
    empty — any case, spaces around ignored; any other value is InvalidInput."""
    word = (value or "").strip().lower()
    if word in EMBEDDING_OFF:
        return False
    if word in (*EMBEDDING_ON, ""):
        return True
    shown = (value or "")[:80]
    raise InvalidInput(
        f"unknown RYVEM_EMBEDDING {shown!r}: use off (or 0, false, no) to turn semantic "
        "search off, on (or 1, true, yes) or leave it unset to use it when installed"
    )


def embedding_from_env(env: Mapping[str, str] | None = None) -> bool:
    """``RYVEM_EMBEDDING`` as :func:`embedding_wanted` reads it."""
    return embedding_wanted((os.environ if env is None else env).get("RYVEM_EMBEDDING"))


def export_dir_from_env(env: Mapping[str, str] | None = None) -> Path | None:
    """``RYVEM_EXPORT_DIR`` (unset or empty: None)."""
    value = (os.environ if env is None else env).get(EXPORT_DIR_ENV)
    return Path(value) if value else None


def debug_wanted(env: Mapping[str, str] | None = None) -> bool:
    """``RYVEM_DEBUG`` set to anything: print the traceback behind an internal error."""
    return bool((os.environ if env is None else env).get("RYVEM_DEBUG"))


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
    embedding: bool = True
    """``RYVEM_EMBEDDING``: whether semantic search may load the model."""
    export_dir: Path | None = None
    """``RYVEM_EXPORT_DIR``: where the MCP server's ``graph_export`` writes (None: the
    data dir's ``exports``; ``ryvem-mcp --export-dir`` overrides it)."""

    @property
    def db_path(self) -> Path:
        return self.db if self.db is not None else self.data_dir / "dev.db"

    @classmethod
    def from_env(
        cls, *, backend: str | None = None, db: str | Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Settings:
        """The settings the environment (``env``, default ``os.environ``) gives; ``backend``
        and ``db`` override theirs. A bad value is InvalidInput, whatever face reads it."""
        env = os.environ if env is None else env
        chosen = backend_name(backend or env.get("RYVEM_BACKEND") or "sqlite")
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
            embedding=embedding_wanted(env.get("RYVEM_EMBEDDING")),  # a bad value stops all
            export_dir=export_dir_from_env(env),
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
