"""The composition root: the one registry of backends, and the one place that opens a store.

Every list of backends — the settings' validation, the CLI's ``--backend`` help, ``copy``,
the MCP usage text and the test suite — reads :data:`REGISTRY`. Adding a backend means one
:class:`Backend` entry here (plus its adapter package and its contract-suite subclass)::

    Backend("sqlite", "one local file (default)", _open_sqlite)

An entry's opener imports its adapter lazily, so a process only ever imports the driver it
uses, and the faces never import an adapter themselves (import-linter checks it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ryvem.application.session import Session
from ryvem.config import BACKEND_NAMES, Settings, backend_name
from ryvem.errors import InvalidInput
from ryvem.ports import GraphRepository, IndexProgress

__all__ = [
    "BACKEND_NAMES",
    "REGISTRY",
    "Backend",
    "GraphRepository",
    "backend_named",
    "copy_endpoints",
    "copy_stores",
    "export_target",
    "open_repository",
    "open_session",
]

Opener = Callable[[Settings, bool, IndexProgress | None], GraphRepository]
Absent = Callable[[Settings], GraphRepository | None]
"""For a backend whose store is created on first open: None when the store the settings name
exists, else an empty stand-in that reads as a new store and writes nothing."""


@dataclass(frozen=True, slots=True)
class Backend:
    """One registered backend: its name, a one-line description, and how to open it."""

    name: str
    summary: str
    opener: Opener
    absent: Absent | None = None
    files: Callable[[Settings], tuple[Path, ...]] | None = None
    """The local files the store lives in, the store itself first (None: it lives elsewhere,
    on a server)."""

    def open(
        self,
        settings: Settings,
        *,
        read_only: bool = False,
        progress: IndexProgress | None = None,
    ) -> GraphRepository:
        """Open the store; ``progress`` hears of a one-off index rebuild while it migrates."""
        return self.opener(settings, read_only, progress)


def _open_sqlite(
    settings: Settings, read_only: bool, progress: IndexProgress | None
) -> GraphRepository:
    from ryvem.adapters.sqlite import SqliteRepository

    return SqliteRepository.open(settings.db_path, read_only=read_only, progress=progress)


def _absent_sqlite(settings: Settings) -> GraphRepository | None:
    if settings.db_path.expanduser().exists():
        return None
    from ryvem.adapters.sqlite import SqliteRepository

    return SqliteRepository.absent(settings.db_path)


def _sqlite_files(settings: Settings) -> tuple[Path, ...]:
    store = os.path.realpath(settings.db_path.expanduser())
    return tuple(Path(store + s) for s in ("", "-wal", "-shm", "-journal"))


def _open_neo4j(
    settings: Settings, read_only: bool, progress: IndexProgress | None
) -> GraphRepository:
    del read_only  # the server's own permissions decide; a copy's source only reads
    from ryvem.adapters.neo4j import Neo4jRepository

    return Neo4jRepository.connect(
        settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database,
        pool_size=settings.neo4j_pool_size, progress=progress,
    )


REGISTRY: dict[str, Backend] = {
    b.name: b
    for b in (
        Backend("sqlite", "one local file (default; --db or $RYVEM_DATA_DIR/dev.db)", _open_sqlite,
                _absent_sqlite, _sqlite_files),
        Backend("neo4j", "a Neo4j 5 server ($RYVEM_NEO4J_URI, _USER, _PASSWORD, _DATABASE)",
                _open_neo4j),
    )
}
assert tuple(REGISTRY) == BACKEND_NAMES, "ryvem.config.BACKEND_NAMES lists every backend"


def backend_named(name: str) -> Backend:
    """The registered backend called ``name`` (case and spaces ignored), else InvalidInput."""
    return REGISTRY[backend_name(name)]


def export_target(settings: Settings, out: str | None) -> Path:
    """Where ``export --out`` writes its page: ``out``, or ``graph.html`` in the data dir.
    InvalidInput when ``out`` is empty or names one of the store's own files (whether or not
    the store exists yet)."""
    if out is not None and not out.strip():  # Path("") is the working directory
        raise InvalidInput("--out is empty: give the path of the page to write")
    target = Path(out) if out is not None else settings.data_dir / "graph.html"
    files = backend_named(settings.backend).files
    own = [os.path.realpath(f) for f in files(settings)] if files else []
    if os.path.realpath(target.expanduser()) in own:
        raise InvalidInput(
            f"--out {target} is the store's own file ({own[0]}); give the path of a page to write"
        )
    return target


def open_repository(
    settings: Settings, *, read_only: bool = False, progress: IndexProgress | None = None
) -> GraphRepository:
    """Open the backend the settings name; imports only the adapter it needs."""
    return backend_named(settings.backend).open(settings, read_only=read_only, progress=progress)


def open_session(
    settings: Settings | None = None,
    *,
    backend: str | None = None,
    db: str | Path | None = None,
    read_only: bool = False,
    cwd: str | Path | None = None,
    progress: IndexProgress | None = None,
    reading: bool = False,
    on_absent: Callable[[str], None] | None = None,
) -> Session:
    """A :class:`~ryvem.application.session.Session` over the store the settings name
    (default: the environment's, ``RYVEM_BACKEND``, ``RYVEM_DATA_DIR``, …). The store opens
    on first use; ``cwd`` is where the default scope is looked up (default: the working
    directory); ``progress`` hears of a one-off index rebuild while the store migrates.

    ``reading``: the caller only reads, so a store not created yet is not created for it: an
    empty stand-in answers as a new store would and refuses writes (the backend's
    ``absent``), and ``on_absent`` hears one line saying so."""
    chosen = settings if settings is not None else Settings.from_env(backend=backend, db=db)
    where = str(chosen.db_path) if chosen.backend == "sqlite" else chosen.neo4j_uri

    def opener() -> GraphRepository:
        absent = backend_named(chosen.backend).absent if reading else None
        stand_in = None if absent is None else absent(chosen)
        if stand_in is not None:
            if on_absent is not None:
                on_absent(f"there is no store at {where} yet (reading creates none; a write "
                          "does)")
            return stand_in
        return open_repository(chosen, read_only=read_only, progress=progress)

    return Session(opener, location=where, cwd=cwd)


def _named(value: str, option: str) -> str:
    try:
        return backend_name(value)
    except InvalidInput as e:
        raise InvalidInput(f"{option}: {e.message}") from None


def copy_endpoints(to: str, from_: str | None, in_use: str) -> tuple[str, str]:
    """A copy's (source, target) backend names: ``--to``, and ``--from`` or, by default, the
    backend in use when it is not the target, else the only other registered one.
    InvalidInput when they are the same or the default is not one backend."""
    target = _named(to, "--to")
    if from_ is not None:
        source = _named(from_, "--from")
    elif in_use != target:
        source = in_use
    else:
        others = [b for b in BACKEND_NAMES if b != target]
        if len(others) != 1:
            raise InvalidInput(f"give --from: one of {', '.join(others)}")
        source = others[0]
    if source == target:
        raise InvalidInput(f"--from and --to are both {source}: nothing to copy")
    return source, target


@contextmanager
def copy_stores(
    source: str, target: str, *, db: str | Path | None = None
) -> Iterator[tuple[GraphRepository, Session]]:
    """The two stores of a copy, from the same settings every verb uses (``db`` for the
    SQLite side): the source read-only, the target as a session (it embeds what it got);
    both closed when the block ends."""
    opened = open_repository(Settings.from_env(backend=source, db=db), read_only=True)
    try:
        with open_session(Settings.from_env(backend=target, db=db)) as into:
            yield opened, into
    finally:
        opened.close()
