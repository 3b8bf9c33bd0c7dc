"""The SQLite adapter: the embedded default, one file, no service.

Durability and sharing: WAL, ``synchronous=NORMAL``, a busy timeout, and ``BEGIN IMMEDIATE``
for every write, retried with backoff while another process holds the write lock, so a CLI
and several MCP servers can share one file. Every ``sqlite3`` exception is translated into
``ryvem.errors`` in :func:`_translate`, and nowhere else.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

from ryvem import errors
from ryvem.adapters.sqlite.schema import MIGRATIONS
from ryvem.domain.links import Candidate, normalize, tail
from ryvem.domain.model import (
    Edge,
    Identity,
    NodeHead,
    NodeVersion,
    SearchHit,
    Stats,
    trusted,
)
from ryvem.domain.scopes import ScopeFilter
from ryvem.domain.search import SearchQuery, needles, rank_past
from ryvem.domain.traversal import EdgeRow
from ryvem.ports import Close, LinkSource

__all__ = ["SqliteRepository"]

T = TypeVar("T")

_NODE_COLS = (
    "id, entity, kind, scope, key, title, body, data, valid_from, valid_to, "
    "superseded_by, supersedes, retired_reason"
)
_EDGE_COLS = "id, rel, src, dst, data, valid_from, valid_to"
_WRITE_RETRY_SECONDS = 60.0
_BUSY_TIMEOUT_MS = 5000


def _translate(exc: sqlite3.Error, where: str) -> errors.RyvemError:
    """The one place sqlite3 errors become ryvem errors."""
    msg = str(exc)
    low = msg.lower()
    if isinstance(exc, sqlite3.IntegrityError):
        if "nodes.kind, nodes.key, nodes.scope" in msg or "nodes_one_current" in low:
            return errors.IntegrityError(
                "the store refused a second current version of one (kind, key, scope)"
            )
        if "edges.src, edges.dst, edges.rel" in msg:
            return errors.IntegrityError("the store refused a second current edge (from, to, rel)")
        return errors.IntegrityError(f"the store refused the write: {msg}")
    if "readonly" in low or "read-only" in low:
        return errors.StoreReadOnly(
            f"cannot write {where}: the database is read-only (check the permissions of the "
            "file, its folder and the mount); nothing was written"
        )
    if "disk is full" in low or "database or disk is full" in low:
        return errors.StoreFull(
            f"{where} is full: no room left for the write (disk full or size limit reached); "
            "nothing was written"
        )
    if "disk i/o error" in low:
        return errors.OperationalError(
            f"{where}: disk I/O error (is the disk full, the file too large, or the disk "
            "failing?); the transaction was rolled back"
        )
    if "locked" in low or "busy" in low:
        return errors.OperationalError(f"{where} is busy (locked by another writer): {msg}")
    if "unable to open" in low or "not a database" in low or "malformed" in low:
        return errors.BackendUnavailable(f"cannot open {where}: {msg}")
    return errors.OperationalError(f"{where}: {msg}")


def _unwritable(path: Path) -> str | None:
    """Why this process cannot write the existing database at ``path``; None if it can."""
    if not os.access(path, os.W_OK):
        return "the file is read-only"
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return "its folder is read-only (SQLite needs to create -wal and -shm files there)"
    return None


def _os_error(exc: OSError, where: str) -> errors.RyvemError:
    """Creating the store's folder or file failed."""
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return errors.StoreReadOnly(
            f"cannot create {where}: its folder is read-only ({reason}); nothing was written"
        )
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return errors.StoreFull(f"cannot create {where}: {reason}")
    return errors.BackendUnavailable(f"cannot open {where}: {reason}")


def _is_busy(exc: sqlite3.Error) -> bool:
    low = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in low or "busy" in low)


def _node(row: Sequence[Any]) -> NodeVersion:
    return trusted(NodeVersion, {
        "id": row[0],
        "entity": row[1],
        "kind": row[2],
        "scope": row[3],
        "key": row[4],
        "title": row[5],
        "body": row[6],
        "data": json.loads(row[7]),
        "valid_from": row[8],
        "valid_to": row[9],
        "superseded_by": row[10],
        "supersedes": row[11],
        "retired_reason": row[12],
    })


def _edge(row: Sequence[Any]) -> Edge:
    return trusted(Edge, {
        "id": row[0],
        "rel": row[1],
        "src": row[2],
        "dst": row[3],
        "data": json.loads(row[4]),
        "valid_from": row[5],
        "valid_to": row[6],
    })


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _valid(alias: str, as_of: int | None) -> tuple[str, list[Any]]:
    """SQL and parameters for "valid at as_of" (current when None)."""
    if as_of is None:
        return f"{alias}.valid_to IS NULL", []
    return f"{alias}.valid_from <= ? AND ({alias}.valid_to IS NULL OR {alias}.valid_to > ?)", [
        as_of,
        as_of,
    ]


def _scope_sql(alias: str, scope: ScopeFilter) -> tuple[str, list[Any]]:
    if scope.exact is not None:
        return f" AND {alias}.scope = ?", [scope.exact]
    if scope.shape == "global":
        return f" AND {alias}.scope = 'global'", []
    if scope.prefix is not None:
        # A range instead of LIKE, so the scope index serves it.
        return f" AND {alias}.scope >= ? AND {alias}.scope < ?", [
            scope.prefix,
            scope.prefix[:-1] + ";",
        ]
    return "", []


def _fts_expression(query: SearchQuery) -> str:
    """Every term double-quoted (quotes doubled), ANDed; prefix terms get a trailing ``*``."""
    parts = []
    for term in query.terms:
        phrase = '"' + " ".join(w.replace('"', '""') for w in term.words) + '"'
        parts.append(phrase + ("*" if term.prefix else ""))
    return " ".join(parts)


class _Tx:
    """``WriteTx`` over one connection inside ``BEGIN IMMEDIATE``."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.c = conn

    def latest_by_identity(self, identities: Sequence[Identity]) -> dict[Identity, NodeVersion]:
        if not identities:
            return {}
        # One statement for the batch: each identity's newest row via the identity index.
        rows = self.c.execute(
            f"SELECT {_NODE_COLS} FROM nodes WHERE id IN ("
            " SELECT (SELECT m.id FROM nodes m WHERE m.kind = w.value ->> 0"
            "  AND m.key = w.value ->> 1 AND m.scope = w.value ->> 2"
            "  ORDER BY m.valid_from DESC LIMIT 1)"
            " FROM json_each(?) w)",
            (json.dumps(list(dict.fromkeys(identities))),),
        ).fetchall()
        out: dict[Identity, NodeVersion] = {}
        for row in rows:
            v = _node(row)
            out[(v.kind, v.key or "", v.scope)] = v
        return out

    def current_of_entities(self, entities: Sequence[str]) -> dict[str, NodeVersion]:
        rows = self.c.execute(
            f"SELECT {_NODE_COLS} FROM nodes WHERE entity IN (SELECT value FROM json_each(?)) "
            "AND valid_to IS NULL",
            (json.dumps(list(entities)),),
        ).fetchall()
        return {r[1]: _node(r) for r in rows}

    def close_versions(self, closes: Sequence[Close]) -> None:
        for c in closes:
            cur = self.c.execute(
                "UPDATE nodes SET valid_to = ?, superseded_by = ?, retired_reason = ? "
                "WHERE id = ? AND valid_to IS NULL",
                (c.at, c.superseded_by, c.retired_reason, c.id),
            )
            if cur.rowcount != 1:
                raise errors.Conflict(f"version {c.id} is no longer current")

    def mark_superseded(self, pairs: Sequence[tuple[str, str]]) -> None:
        for old, new in pairs:
            cur = self.c.execute(
                "UPDATE nodes SET superseded_by = ? WHERE id = ? AND superseded_by IS NULL "
                "AND valid_to IS NOT NULL",
                (new, old),
            )
            if cur.rowcount != 1:
                raise errors.Conflict(f"version {old} was superseded concurrently")

    def insert_versions(
        self, versions: Sequence[NodeVersion], targets: Sequence[tuple[str, ...]]
    ) -> None:
        _insert_versions(self.c, versions, targets, ignore=False)

    def insert_edges(self, edges: Sequence[Edge]) -> None:
        _insert_edges(self.c, edges, ignore=False)

    def close_edges(self, ids: Sequence[str], at: int) -> None:
        self.c.executemany(
            "UPDATE edges SET valid_to = ? WHERE id = ? AND valid_to IS NULL",
            [(at, i) for i in ids],
        )

    def current_edges(
        self, src: str, dst: str | None = None, rel: str | None = None
    ) -> list[Edge]:
        sql = f"SELECT {_EDGE_COLS} FROM edges WHERE src = ? AND valid_to IS NULL"
        params: list[Any] = [src]
        if dst is not None:
            sql += " AND dst = ?"
            params.append(dst)
        if rel is not None:
            sql += " AND rel = ?"
            params.append(rel)
        return [_edge(r) for r in self.c.execute(sql, params)]

    def current_link_edges(self, sources: Sequence[str]) -> list[Edge]:
        rows = self.c.execute(
            f"SELECT {_EDGE_COLS} FROM edges WHERE src IN (SELECT value FROM json_each(?)) "
            "AND rel = 'links' AND valid_to IS NULL",
            (json.dumps(list(sources)),),
        )
        return [_edge(r) for r in rows]

    def link_candidates(self, tails: Sequence[str]) -> list[Candidate]:
        return _link_candidates(self.c, tails)

    def link_sources(self, tails: Sequence[str]) -> list[LinkSource]:
        rows = self.c.execute(
            "SELECT n.entity, n.kind, n.scope, n.id FROM link_targets t "
            "JOIN nodes n ON n.id = t.version_id "
            "WHERE t.tail IN (SELECT value FROM json_each(?)) AND n.valid_to IS NULL "
            "GROUP BY n.id",
            (json.dumps(list(dict.fromkeys(tails))),),
        ).fetchall()
        targets: dict[str, list[str]] = {}
        for vid, target in self.c.execute(
            "SELECT version_id, target FROM link_targets "
            "WHERE version_id IN (SELECT value FROM json_each(?)) ORDER BY version_id, target",
            (json.dumps([r[3] for r in rows]),),
        ):
            targets.setdefault(vid, []).append(target)
        return [
            LinkSource(entity=entity, kind=kind, scope=scope, targets=tuple(targets.get(vid, ())))
            for entity, kind, scope, vid in rows
        ]


def _targets_of(conn: sqlite3.Connection, version_id: str) -> tuple[str, ...]:
    return tuple(
        r[0]
        for r in conn.execute(
            "SELECT target FROM link_targets WHERE version_id = ? ORDER BY target", (version_id,)
        )
    )


def _link_candidates(conn: sqlite3.Connection, tails: Sequence[str]) -> list[Candidate]:
    rows = conn.execute(
        "SELECT entity, kind, key, scope FROM nodes "
        "WHERE key_tail IN (SELECT value FROM json_each(?)) AND valid_to IS NULL "
        "AND key_tail IS NOT NULL",
        (json.dumps(list(dict.fromkeys(tails))),),
    )
    return [Candidate(entity=r[0], kind=r[1], key=r[2], scope=r[3]) for r in rows]


def _insert_versions(
    conn: sqlite3.Connection,
    versions: Sequence[NodeVersion],
    targets: Sequence[tuple[str, ...]],
    *,
    ignore: bool,
) -> int:
    # `ignore` skips rows whose id exists (a re-run copy); any other constraint still fails.
    tail_sql = " ON CONFLICT(id) DO NOTHING" if ignore else ""
    rows = []
    for v in versions:
        norm = normalize(v.key) if v.key is not None else None
        rows.append(
            (
                v.id, v.entity, v.kind, v.scope, v.key, norm,
                tail(norm) if norm is not None else None,
                v.title, v.body, _dump(v.data), v.valid_from, v.valid_to,
                v.superseded_by, v.supersedes, v.retired_reason,
            )
        )
    # rowcount counts the rows this statement inserted; total_changes would also count the
    # FTS5 trigger's writes.
    inserted = conn.executemany(
        "INSERT INTO nodes (id, entity, kind, scope, key, key_norm, key_tail, title, body, data,"
        " valid_from, valid_to, superseded_by, supersedes, retired_reason)"
        f" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?){tail_sql}",
        rows,
    ).rowcount
    link_rows = [(v.id, t, tail(t)) for v, ts in zip(versions, targets, strict=True) for t in ts]
    if link_rows:
        conn.executemany(
            "INSERT OR IGNORE INTO link_targets (version_id, target, tail) VALUES (?,?,?)",
            link_rows,
        )
    return inserted


def _insert_edges(conn: sqlite3.Connection, edges: Sequence[Edge], *, ignore: bool) -> int:
    tail_sql = " ON CONFLICT(id) DO NOTHING" if ignore else ""
    before = conn.total_changes
    conn.executemany(
        f"INSERT INTO edges ({_EDGE_COLS}) VALUES (?,?,?,?,?,?,?){tail_sql}",
        [(e.id, e.rel, e.src, e.dst, _dump(e.data), e.valid_from, e.valid_to) for e in edges],
    )
    return conn.total_changes - before


class SqliteRepository:
    """``GraphRepository`` over one SQLite file."""

    backend = "sqlite"

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self._lock = threading.RLock()
        self.path = path
        self.location = str(path)
        self.read_only_reason: str | None = None  # why writes are refused, when they are

    # --- lifecycle ----------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path, *, read_only: bool = False) -> SqliteRepository:
        """Open (creating when missing: folder 0700, file 0600) the store at ``path``.

        A store this process cannot write — a read-only file, folder or mount — opens for
        reading; every write then fails with :class:`~ryvem.errors.StoreReadOnly` and nothing
        is created beside the file. Without a ``-wal`` file (no writer has it open) such a
        store is read as an immutable snapshot, since SQLite would otherwise create ``-wal``
        and ``-shm`` files (or fail, in a read-only folder) just to read it.
        """
        path = Path(path).expanduser()
        where = str(path)
        unwritable: str | None = None
        try:
            if not path.exists():
                if read_only:
                    raise errors.NotFound(f"no database at {where}")
                path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
                os.close(fd)
            else:
                unwritable = _unwritable(path)
            if read_only or unwritable is not None:
                query = "mode=ro"
                if unwritable is not None and not Path(f"{path}-wal").exists():
                    query += "&immutable=1"
                conn = sqlite3.connect(
                    f"{path.absolute().as_uri()}?{query}", uri=True, isolation_level=None,
                    check_same_thread=False, timeout=_BUSY_TIMEOUT_MS / 1000,
                )
            else:
                conn = sqlite3.connect(
                    str(path), isolation_level=None, check_same_thread=False,
                    timeout=_BUSY_TIMEOUT_MS / 1000,
                )
        except OSError as e:
            raise _os_error(e, where) from e
        except sqlite3.Error as e:
            raise _translate(e, where) from e
        repo = cls(conn, path)
        repo.read_only_reason = unwritable or ("opened read-only" if read_only else None)
        read_only = repo.read_only_reason is not None
        try:
            conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            conn.create_function("ryvem_lower", 1, _lower, deterministic=True)
            if not read_only:
                mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
                if mode != "wal":
                    repo._retry_busy(lambda: conn.execute("PRAGMA journal_mode = WAL"))
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = OFF")
            repo._migrate(read_only)
        except errors.RyvemError:
            conn.close()
            raise
        except sqlite3.Error as e:
            conn.close()
            raise _translate(e, where) from e
        return repo

    def _migrate(self, read_only: bool) -> None:
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            raise errors.BackendUnavailable(
                f"{self.location} has schema version {version}; this ryvem knows up to "
                f"{len(MIGRATIONS)}: upgrade ryvem"
            )
        if version == len(MIGRATIONS):
            return
        if read_only:
            raise errors.StoreReadOnly(
                f"{self.location} needs a schema upgrade but is opened read-only"
            )

        def migrate(c: sqlite3.Connection) -> None:
            current = c.execute("PRAGMA user_version").fetchone()[0]
            for i in range(current, len(MIGRATIONS)):
                for statement in _split_sql(MIGRATIONS[i]):
                    c.execute(statement)
                c.execute(f"PRAGMA user_version = {i + 1}")

        self._in_transaction(migrate)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SqliteRepository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- transactions -------------------------------------------------------------------
    def _retry_busy(self, fn: Callable[[], T]) -> T:
        deadline = time.monotonic() + _WRITE_RETRY_SECONDS
        delay = 0.005
        while True:
            try:
                return fn()
            except sqlite3.OperationalError as e:
                if not _is_busy(e) or time.monotonic() > deadline:
                    raise
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.25)

    def _in_transaction(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        if self.read_only_reason is not None:
            raise errors.StoreReadOnly(
                f"cannot write {self.location}: {self.read_only_reason}; nothing was written "
                "(reads still work)"
            )
        conn = self._conn

        def attempt() -> T:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = fn(conn)
                conn.execute("COMMIT")
                return result
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise

        with self._lock:
            try:
                return self._retry_busy(attempt)
            except sqlite3.Error as e:
                raise _translate(e, self.location) from e

    def write(self, fn: Callable[[Any], T]) -> T:
        return self._in_transaction(lambda conn: fn(_Tx(conn)))

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._retry_busy(lambda: self._conn.execute(sql, params).fetchall())
            except sqlite3.Error as e:
                raise _translate(e, self.location) from e

    # --- reads --------------------------------------------------------------------------
    def get_version(self, id: str) -> NodeVersion | None:
        rows = self._read(f"SELECT {_NODE_COLS} FROM nodes WHERE id = ?", (id,))
        return _node(rows[0]) if rows else None

    def get_versions(self, ids: Sequence[str]) -> dict[str, NodeVersion]:
        rows = self._read(
            f"SELECT {_NODE_COLS} FROM nodes WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(list(ids)),),
        )
        return {r[0]: _node(r) for r in rows}

    def get_identity(self, identity: Identity, as_of: int | None) -> NodeVersion | None:
        cond, params = _valid("n", as_of)
        rows = self._read(
            f"SELECT {_NODE_COLS} FROM nodes n WHERE kind = ? AND key = ? AND scope = ? AND {cond} "
            "ORDER BY valid_from DESC LIMIT 1",
            (*identity, *params),
        )
        return _node(rows[0]) if rows else None

    def latest_of_identity(self, identity: Identity) -> NodeVersion | None:
        rows = self._read(
            f"SELECT {_NODE_COLS} FROM nodes WHERE kind = ? AND key = ? AND scope = ? "
            "ORDER BY valid_from DESC LIMIT 1",
            identity,
        )
        return _node(rows[0]) if rows else None

    def get_entity(self, entity: str, as_of: int | None) -> NodeVersion | None:
        cond, params = _valid("n", as_of)
        rows = self._read(
            f"SELECT {_NODE_COLS} FROM nodes n WHERE entity = ? AND {cond} "
            "ORDER BY valid_from DESC LIMIT 1",
            (entity, *params),
        )
        return _node(rows[0]) if rows else None

    def get_heads(self, entities: Sequence[str], as_of: int | None) -> dict[str, NodeHead]:
        cond, params = _valid("n", as_of)
        rows = self._read(
            "SELECT id, entity, kind, scope, key, title, valid_from, valid_to FROM nodes n "
            f"WHERE entity IN (SELECT value FROM json_each(?)) AND {cond}",
            (json.dumps(list(entities)), *params),
        )
        return {r[1]: NodeHead._make(r) for r in rows}

    def find_by_key(self, key: str, scope: ScopeFilter, as_of: int | None) -> list[NodeVersion]:
        cond, params = _valid("n", as_of)
        ssql, sparams = _scope_sql("n", scope)
        rows = self._read(
            f"SELECT {_NODE_COLS} FROM nodes n WHERE key = ? AND {cond}{ssql} ORDER BY kind, scope",
            (key, *params, *sparams),
        )
        return [_node(r) for r in rows]

    def chain(self, entity: str) -> list[NodeVersion]:
        rows = self._read(
            f"SELECT {_NODE_COLS} FROM nodes WHERE entity = ? ORDER BY valid_from, id", (entity,)
        )
        return [_node(r) for r in rows]

    def edges_of(self, entity: str, as_of: int | None) -> list[Edge]:
        cond, params = _valid("e", as_of)
        rows = self._read(
            f"SELECT {_EDGE_COLS} FROM edges e WHERE src = ? AND rel != 'supersedes' AND {cond} "
            f"UNION ALL SELECT {_EDGE_COLS} FROM edges e WHERE dst = ? AND rel != 'supersedes' "
            f"AND src != dst AND {cond}",
            (entity, *params, entity, *params),
        )
        return [_edge(r) for r in rows]

    def search(
        self,
        query: SearchQuery,
        kinds: Sequence[str],
        scope: ScopeFilter,
        limit: int,
        as_of: int | None,
    ) -> list[SearchHit]:
        kind_sql = ""
        kind_params: list[Any] = []
        if kinds:
            kind_sql = " AND n.kind IN (SELECT value FROM json_each(?))"
            kind_params = [json.dumps(list(kinds))]
        ssql, sparams = _scope_sql("n", scope)
        if query.empty:
            cond, params = _valid("n", as_of)
            rows = self._read(
                f"SELECT n.id, n.kind, n.scope, n.title, substr(n.body, 1, 160), 0.0 FROM nodes n "
                f"WHERE {cond}{kind_sql}{ssql} ORDER BY n.valid_from DESC, n.id DESC LIMIT ?",
                (*params, *kind_params, *sparams, limit),
            )
            return [_hit(r, plain=True) for r in rows]
        if as_of is not None:
            return self._search_as_of(query, kind_sql, kind_params, ssql, sparams, limit, as_of)
        rows = self._read(
            "SELECT n.id, n.kind, n.scope, n.title, "
            "snippet(nodes_fts, -1, '**', '**', '…', 16), bm25(nodes_fts, 4.0, 1.0) AS rank "
            "FROM nodes_fts JOIN nodes n ON n.seq = nodes_fts.rowid "
            f"WHERE nodes_fts MATCH ? AND n.valid_to IS NULL{kind_sql}{ssql} "
            "ORDER BY rank LIMIT ?",
            (_fts_expression(query), *kind_params, *sparams, limit),
        )
        return [_hit(r) for r in rows]

    def _search_as_of(
        self,
        query: SearchQuery,
        kind_sql: str,
        kind_params: list[Any],
        ssql: str,
        sparams: list[Any],
        limit: int,
        as_of: int,
    ) -> list[SearchHit]:
        # Superseded text is not in the FTS index, so the past is searched by LIKE.
        cond, params = _valid("n", as_of)
        like_sql = ""
        like_params: list[Any] = []
        found = needles(query)
        for needle in found:
            pat = "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            # SQLite's LIKE folds ASCII case only; ryvem_lower folds every script, as FTS5 does.
            like_sql += (
                " AND (ryvem_lower(n.title) LIKE ? ESCAPE '\\'"
                " OR ryvem_lower(n.body) LIKE ? ESCAPE '\\')"
            )
            like_params += [pat, pat]
        rows = self._read(
            f"SELECT n.id, n.kind, n.scope, n.title, n.body, n.valid_from FROM nodes n "
            f"WHERE {cond}{kind_sql}{ssql}{like_sql} ORDER BY n.valid_from DESC LIMIT ?",
            (*params, *kind_params, *sparams, *like_params, max(limit * 20, 200)),
        )
        return rank_past(rows, found, limit)

    def expand(
        self,
        frontier: Sequence[str],
        side: Literal["out", "in"],
        rels: Sequence[str] | None,
        as_of: int | None,
        scope: ScopeFilter,
    ) -> Sequence[EdgeRow]:
        near, far = ("src", "dst") if side == "out" else ("dst", "src")
        econd, eparams = _valid("e", as_of)
        ncond, nparams = _valid("n", as_of)
        ssql, sparams = _scope_sql("n", scope)
        if rels is None:
            rel_sql, rel_params = " AND e.rel != 'supersedes'", []
        else:
            rel_sql, rel_params = " AND e.rel IN (SELECT value FROM json_each(?))", [
                json.dumps(list(rels))
            ]
        rows = self._read(
            f"SELECT e.id, e.rel, e.src, e.dst FROM edges e "
            f"WHERE e.{near} IN (SELECT value FROM json_each(?)){rel_sql} AND {econd} "
            # INDEXED BY: left alone, the planner answers a scope filter from the scope index
            # and reads every current row of the scope for each edge.
            f"AND EXISTS (SELECT 1 FROM nodes n INDEXED BY nodes_entity "
            f"WHERE n.entity = e.{far} AND {ncond}{ssql})",
            (json.dumps(list(frontier)), *rel_params, *eparams, *nparams, *sparams),
        )
        return rows  # (id, rel, src, dst) tuples, passed on as the store made them

    def link_candidates(self, tails: Sequence[str]) -> list[Candidate]:
        with self._lock:
            try:
                return _link_candidates(self._conn, tails)
            except sqlite3.Error as e:
                raise _translate(e, self.location) from e

    def link_targets(self, version_id: str) -> tuple[str, ...]:
        with self._lock:
            try:
                return _targets_of(self._conn, version_id)
            except sqlite3.Error as e:
                raise _translate(e, self.location) from e

    def stats(self) -> Stats:
        counts = self._read(
            "SELECT sum(valid_to IS NULL), sum(valid_to IS NOT NULL AND superseded_by IS NOT NULL),"
            " sum(valid_to IS NOT NULL AND superseded_by IS NULL) FROM nodes"
        )[0]
        ecounts = self._read(
            "SELECT sum(valid_to IS NULL), sum(valid_to IS NOT NULL) FROM edges"
        )[0]
        kinds = dict(self._read(
            "SELECT kind, count(*) FROM nodes WHERE valid_to IS NULL GROUP BY kind ORDER BY kind"))
        scopes = dict(self._read(
            "SELECT scope, count(*) FROM nodes WHERE valid_to IS NULL "
            "GROUP BY scope ORDER BY scope"))
        rels = dict(self._read(
            "SELECT rel, count(*) FROM edges WHERE valid_to IS NULL GROUP BY rel ORDER BY rel"))
        return Stats(
            backend=self.backend,
            location=self.location,
            current_rows=counts[0] or 0,
            superseded_rows=counts[1] or 0,
            retired_rows=counts[2] or 0,
            edges_current=ecounts[0] or 0,
            edges_closed=ecounts[1] or 0,
            kinds=kinds,
            scopes=scopes,
            rels=rels,
        )

    # --- whole-graph streams ------------------------------------------------------------
    def iter_versions(
        self, batch: int = 1000
    ) -> Iterator[list[tuple[NodeVersion, tuple[str, ...]]]]:
        last = ""
        while True:
            rows = self._read(
                f"SELECT {_NODE_COLS} FROM nodes WHERE id > ? ORDER BY id LIMIT ?", (last, batch)
            )
            if not rows:
                return
            ids = [r[0] for r in rows]
            targets: dict[str, list[str]] = {}
            for vid, target in self._read(
                "SELECT version_id, target FROM link_targets "
                "WHERE version_id IN (SELECT value FROM json_each(?)) ORDER BY version_id, target",
                (json.dumps(ids),),
            ):
                targets.setdefault(vid, []).append(target)
            yield [(_node(r), tuple(targets.get(r[0], ()))) for r in rows]
            last = ids[-1]

    def iter_edges(self, batch: int = 1000) -> Iterator[list[Edge]]:
        last = ""
        while True:
            rows = self._read(
                f"SELECT {_EDGE_COLS} FROM edges WHERE id > ? ORDER BY id LIMIT ?", (last, batch)
            )
            if not rows:
                return
            yield [_edge(r) for r in rows]
            last = rows[-1][0]

    def load(
        self, versions: Iterable[tuple[NodeVersion, tuple[str, ...]]], edges: Iterable[Edge]
    ) -> tuple[int, int]:
        vlist = list(versions)
        elist = list(edges)

        def run(conn: sqlite3.Connection) -> tuple[int, int]:
            # Closed rows first, so a current row never meets its own successor's constraint.
            order = sorted(vlist, key=lambda p: (p[0].valid_to is None, p[0].valid_from))
            nv = _insert_versions(
                conn, [p[0] for p in order], [p[1] for p in order], ignore=True
            )
            ne = _insert_edges(conn, sorted(elist, key=lambda e: e.valid_to is None), ignore=True)
            return nv, ne

        return self._in_transaction(run)

    # --- maintenance (used by tests and `ryvem graph check`) -----------------------------
    def integrity_problems(self) -> list[str]:
        """SQLite's and FTS5's own integrity checks; empty when both pass."""
        problems = [r[0] for r in self._read("PRAGMA integrity_check") if r[0] != "ok"]
        with self._lock:
            try:
                self._conn.execute("INSERT INTO nodes_fts(nodes_fts) VALUES ('integrity-check')")
            except sqlite3.Error as e:
                problems.append(f"fts: {e}")
        return problems


def _lower(text: str | None) -> str | None:
    """``ryvem_lower``: Unicode lower case for the as-of substring search."""
    return text.lower() if isinstance(text, str) else None


def _hit(row: Sequence[Any], *, plain: bool = False) -> SearchHit:
    snippet = row[4] or ""
    if plain:
        snippet = " ".join(snippet.split())[:120]
    return SearchHit.model_construct(
        id=row[0], kind=row[1], scope=row[2], title=row[3], snippet=snippet,
        score=0.0 if plain else round(-float(row[5]), 6),
    )


def _split_sql(script: str) -> list[str]:
    """Split a migration into statements (triggers keep their inner semicolons)."""
    statements: list[str] = []
    buf: list[str] = []
    for line in script.splitlines():
        stripped = line.split("--", 1)[0].rstrip()
        if not stripped.strip():
            continue
        buf.append(stripped)
        candidate = "\n".join(buf)
        if stripped.endswith(";") and sqlite3.complete_statement(candidate):
            statements.append(candidate)
            buf = []
    if buf:
        statements.append("\n".join(buf))
    return statements
