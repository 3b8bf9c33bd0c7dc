"""The SQLite adapter: the embedded default, one file, no service.

Durability and sharing: WAL, ``synchronous=NORMAL``, a busy timeout, and ``BEGIN IMMEDIATE``
for every write, retried with backoff while another process holds the write lock, so a CLI
and several MCP servers can share one file. Every query is a file in
:mod:`ryvem.adapters.sqlite.queries`; every ``sqlite3`` exception becomes a ``ryvem.errors``
exception in :mod:`ryvem.adapters.sqlite.errors`, and nowhere else. Column lists and row
mappers derive from the domain model's fields (``NODE_FIELDS``, ``EDGE_FIELDS``).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import os
import random
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Literal, ParamSpec, TypeVar

from ryvem import errors
from ryvem.adapters.sqlite import queries, topk
from ryvem.adapters.sqlite.errors import DRIVER_ERRORS, from_os_error, from_sqlite, is_busy
from ryvem.adapters.sqlite.errors import unwritable as unwritable_reason
from ryvem.adapters.sqlite.postings import PostingSql  # numpy stays a lazy import there
from ryvem.adapters.sqlite.vectors import VectorSql  # and there
from ryvem.domain import visibility
from ryvem.domain.links import Candidate, normalize, tail
from ryvem.domain.model import (
    EDGE_FIELDS,
    HEAD_FIELDS,
    JSON_FIELDS,
    NODE_FIELDS,
    AuditEntry,
    Edge,
    Identity,
    NodeHead,
    NodeVersion,
    SearchHit,
    Stats,
    trusted,
)
from ryvem.domain.redaction import Rewritten
from ryvem.domain.scopes import ScopeFilter
from ryvem.domain.search import STOP_WORDS, SearchQuery, lexical_plan, opening, snippet
from ryvem.domain.spellings import DECODING_MARKS
from ryvem.domain.traversal import EdgeRow
from ryvem.ports import (
    Close,
    ForgetTx,
    IndexProgress,
    LinkSource,
    PendingText,
    Progress,
    WriteTx,
)

__all__ = ["SqliteRepository"]

T = TypeVar("T")

_WRITE_RETRY_SECONDS = 60.0
_VACUUM_TICK = 200_000  # SQLite VM steps between two progress reports during VACUUM
_BUSY_TIMEOUT_MS = 5000
_COUNTS_KEPT = 10_000  # phrase counts a store remembers between writes (see _counted)
_MIGRATIONS = queries.migrations()
# Migrations after which both full-text tables are filled from `nodes` (user_version reached).
_FILLS_FTS = frozenset({2})
# rows kept for the next process's search (migration_008) are written anew once they are this
# many versions behind a process's own; until then only new phrases are added beside them
_KEEP_BEHIND = 512
_FILL_BATCH = 5000

# --- columns, derived once from the domain model ----------------------------------------
_NODE_JSON = tuple(i for i, f in enumerate(NODE_FIELDS) if f in JSON_FIELDS)
_EDGE_JSON = tuple(i for i, f in enumerate(EDGE_FIELDS) if f in JSON_FIELDS)
_COLUMNS = {
    "node_cols": ", ".join(f"n.{f}" for f in NODE_FIELDS),
    "node_cols_plain": ", ".join(NODE_FIELDS),
    "node_params": ", ".join(f":{f}" for f in NODE_FIELDS),
    "head_cols": ", ".join(f"n.{f}" for f in HEAD_FIELDS),
    "edge_cols": ", ".join(f"e.{f}" for f in EDGE_FIELDS),
    "edge_cols_plain": ", ".join(EDGE_FIELDS),
    "edge_params": ", ".join(f":{f}" for f in EDGE_FIELDS),
}
# --- the closed vocabulary of filter fragments ------------------------------------------
# "Visible at (as_of, known_at)": the one rule of ryvem.domain.visibility rendered as SQL
# (``{valid}`` for a node row ``n``, ``{valid_e}`` for an edge row ``e``), keyed by (as_of
# given, known_at given). Without either clock it is "current", which the partial indexes serve.
_WINDOW = {
    (past, known): visibility.render(
        visibility.window(past, known), lambda f: "{t}." + f, lambda p: ":" + p
    )
    for past in (False, True) for known in (False, True)
}
_VALID = {when: (text.format(t="n"), text.format(t="e")) for when, text in _WINDOW.items()}
_EVER = ("1", "1")  # every version, whenever it held (search's every_version)
_SCOPE = {
    "all": "",
    "exact": " AND n.scope = :scope",
    "global": " AND n.scope = 'global'",
    # A range instead of LIKE, so the scope index serves it.
    "prefix": " AND n.scope >= :scope_lo AND n.scope < :scope_hi",
}
_KINDS = {False: "", True: " AND n.kind IN (SELECT value FROM json_each(:kinds))"}
_RELS = {
    False: " AND e.rel != 'supersedes'",
    True: " AND e.rel IN (SELECT value FROM json_each(:rels))",
}
_ON_CONFLICT = {False: "", True: " ON CONFLICT(id) DO NOTHING"}


def _sql(
    name: str,
    *,
    as_of: int | None = None,
    known_at: int | None = None,
    scope: str = "all",
    kinds: bool = False,
    rels: bool = False,
    ignore: bool = False,
    ever: bool = False,
) -> str:
    """The query ``name`` with the fragments for these filters (rendered once per shape).

    A query using ``{valid}``/``{valid_e}`` takes ``:as_of`` and ``:known_at`` parameters
    (:func:`_when`); ``ever`` drops the window test (every version)."""
    return _render(name, as_of is not None, known_at is not None, scope, kinds, rels, ignore,
                   ever)


def _when(as_of: int | None, known_at: int | None) -> dict[str, int | None]:
    """The parameters of the ``{valid}`` fragments."""
    return {"as_of": as_of, "known_at": known_at}


@cache
def _render(
    name: str, past: bool, known: bool, scope: str, kinds: bool, rels: bool, ignore: bool,
    ever: bool = False,
) -> str:
    valid_n, valid_e = _EVER if ever else _VALID[(past, known)]
    fragments = {
        **_COLUMNS,
        "valid": valid_n,
        "valid_e": valid_e,
        "scope": _SCOPE[scope],
        "kinds": _KINDS[kinds],
        "rels": _RELS[rels],
        "on_conflict": _ON_CONFLICT[ignore],
    }
    return queries.render(name, tuple(sorted(fragments.items())))


def _scope_params(scope: ScopeFilter) -> tuple[str, dict[str, Any]]:
    if scope.exact is not None:
        return "exact", {"scope": scope.exact}
    if scope.shape == "global":
        return "global", {}
    if scope.prefix is not None:
        return "prefix", {"scope_lo": scope.prefix, "scope_hi": scope.prefix[:-1] + ";"}
    return "all", {}


def _node(row: Sequence[Any]) -> NodeVersion:
    values = dict(zip(NODE_FIELDS, row, strict=True))
    for i in _NODE_JSON:
        values[NODE_FIELDS[i]] = json.loads(row[i])
    return trusted(NodeVersion, values)


def _edge(row: Sequence[Any]) -> Edge:
    values = dict(zip(EDGE_FIELDS, row, strict=True))
    for i in _EDGE_JSON:
        values[EDGE_FIELDS[i]] = json.loads(row[i])
    return trusted(Edge, values)


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _params(model: NodeVersion | Edge) -> dict[str, Any]:
    values = dict(model.__dict__)
    for f in JSON_FIELDS:
        if f in values:
            values[f] = _dump(values[f])
    return values


def _fts_phrases(query: SearchQuery) -> list[str]:
    """The domain's lexical plan as FTS5 phrases (to be OR-ed): every clause double-quoted
    (quotes doubled); prefix terms get a trailing ``*``. Empty when the text had no word."""
    parts = []
    for term in lexical_plan(query).clauses:
        phrase = '"' + " ".join(w.replace('"', '""') for w in term.words) + '"'
        parts.append(phrase + ("*" if term.prefix else ""))
    return parts


def _ranked_rows(
    conn: sqlite3.Connection,
    ranking: str,
    phrases: list[str],
    params: dict[str, Any],
    *,
    every_version: bool,
    counted: dict[tuple[bool, str], int] | None = None,
) -> list[Any]:
    """A search's rows, best first: the top ``params["limit"]`` of ``ranking`` (a
    ``(seq, rank)`` query over ``nodes_fts``, or ``nodes_fts_all`` for ``every_version``)
    over ``phrases`` OR-ed, found by :func:`topk.top_k`, then read. ``counted`` holds
    phrases' row counts already read in this snapshot's data (see ``_counted``)."""
    sizing = _sql("fts_all_row_count" if every_version else "fts_row_count")

    def rank(match: str, limit: int) -> list[tuple[int, float]]:
        return conn.execute(ranking, {**params, "match": match, "limit": limit}).fetchall()

    def rows() -> int:
        return int(conn.execute(sizing).fetchone()[0])

    averages = _sql("fts_all_averages" if every_version else "fts_averages")
    count = _phrase_counter(conn, counted, every_version=every_version)

    def exact(seqs: list[int]) -> dict[int, float] | None:
        texts = conn.execute(_sql("text_of_rows"), {"seqs": _json(seqs)}).fetchall()
        block = conn.execute(averages).fetchone()
        return topk.exact_ranks(phrases, texts, block[0] if block else None, count)

    top = topk.top_k(phrases, params["limit"], rank=rank, count=count, rows=rows, exact=exact)
    return _read_ranked(conn, top)


def _read_ranked(conn: sqlite3.Connection, top: list[tuple[int, float]]) -> list[Any]:
    """The rows of a ranked ``(seq, rank)`` list, in its order, each with its rank last."""
    found = {r[0]: r[1:] for r in conn.execute(
        _sql("search_rows"), {"seqs": _json(seq for seq, _ in top)})}
    return [(*found[seq], r) for seq, r in top]


def _phrase_counter(
    conn: sqlite3.Connection,
    counted: dict[tuple[bool, str], int] | None,
    *,
    every_version: bool = False,
) -> Callable[[str], int]:
    """How many indexed rows (current, or every version's) hold a phrase — its df, what
    ``bm25()`` counts for its idf — remembered in ``counted`` (see
    ``SqliteRepository._counted``) when given."""
    counting = _sql("match_count_all" if every_version else "match_count")

    def count(phrase: str) -> int:
        if counted is None:
            return int(conn.execute(counting, {"match": phrase}).fetchone()[0])
        key = (every_version, phrase)
        if key not in counted:
            counted[key] = int(conn.execute(counting, {"match": phrase}).fetchone()[0])
        return counted[key]

    return count


def _json(values: Iterable[Any]) -> str:
    return json.dumps(list(values))


class _Tx(WriteTx):
    """``WriteTx`` over one connection inside ``BEGIN IMMEDIATE``."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.c = conn

    def latest_by_identity(self, identities: Sequence[Identity]) -> dict[Identity, NodeVersion]:
        if not identities:
            return {}
        rows = self.c.execute(
            _sql("latest_by_identity"), {"idents": _json(dict.fromkeys(identities))}
        ).fetchall()
        out: dict[Identity, NodeVersion] = {}
        for row in rows:
            v = _node(row)
            out[(v.kind, v.key or "", v.scope)] = v
        return out

    def current_of_entities(self, entities: Sequence[str]) -> dict[str, NodeVersion]:
        rows = self.c.execute(_sql("current_of_entities"), {"entities": _json(entities)})
        return {v.entity: v for v in map(_node, rows)}

    def close_versions(self, closes: Sequence[Close]) -> None:
        sql = _sql("close_version")
        for c in closes:
            cur = self.c.execute(
                sql,
                {"at": c.at, "recorded_at": c.recorded_at, "superseded_by": c.superseded_by,
                 "retired_reason": c.retired_reason, "id": c.id},
            )
            if cur.rowcount != 1:
                raise errors.Conflict(f"version {c.id} is no longer current")

    def mark_superseded(self, pairs: Sequence[tuple[str, str]]) -> None:
        sql = _sql("mark_superseded")
        for old, new in pairs:
            cur = self.c.execute(sql, {"successor": new, "id": old})
            if cur.rowcount != 1:
                raise errors.Conflict(f"version {old} was superseded concurrently")

    def insert_versions(
        self, versions: Sequence[NodeVersion], targets: Sequence[tuple[str, ...]]
    ) -> None:
        _insert_versions(self.c, versions, targets, ignore=False)

    def insert_edges(self, edges: Sequence[Edge]) -> None:
        _insert_edges(self.c, edges, ignore=False)

    def close_edges(self, ids: Sequence[str], at: int, recorded_at: int) -> None:
        self.c.executemany(
            _sql("close_edge"), [{"at": at, "recorded_at": recorded_at, "id": i} for i in ids]
        )

    def latest_edge(self, src: str, dst: str, rel: str) -> Edge | None:
        rows = self.c.execute(_sql("latest_edge"), {"src": src, "dst": dst, "rel": rel})
        found = rows.fetchone()
        return None if found is None else _edge(found)

    def current_edges(
        self, src: str, dst: str | None = None, rel: str | None = None
    ) -> list[Edge]:
        rows = self.c.execute(_sql("current_edges"), {"src": src, "dst": dst, "rel": rel})
        return [_edge(r) for r in rows]

    def current_link_edges(self, sources: Sequence[str]) -> list[Edge]:
        rows = self.c.execute(_sql("current_link_edges"), {"sources": _json(sources)})
        return [_edge(r) for r in rows]

    def link_candidates(self, tails: Sequence[str]) -> list[Candidate]:
        return _link_candidates(self.c, tails)

    def link_sources(self, tails: Sequence[str]) -> list[LinkSource]:
        rows = self.c.execute(
            _sql("link_sources"), {"tails": _json(dict.fromkeys(tails))}
        ).fetchall()
        targets = _targets_of_versions(self.c, [r[3] for r in rows])
        return [
            LinkSource(entity=entity, kind=kind, scope=scope, targets=tuple(targets.get(vid, ())))
            for entity, kind, scope, vid in rows
        ]


def _json_fragment(text: str) -> str:
    """``text`` as it appears inside a stored JSON string (see ``_dump``)."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


class _ForgetTx(ForgetTx):
    """``ForgetTx`` over one connection inside ``BEGIN IMMEDIATE``: the forget pass opens
    with the audit entry, and ``SqliteRepository.forget`` closes it before the commit."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.c = conn
        self.rewrote = False

    def _with_targets(self, rows: list[Any]) -> list[tuple[NodeVersion, tuple[str, ...]]]:
        versions = [_node(r) for r in rows]
        targets = _targets_of_versions(self.c, [v.id for v in versions])
        return [(v, tuple(targets.get(v.id, ()))) for v in versions]

    def versions_containing(
        self, text: str, scope: ScopeFilter
    ) -> list[tuple[NodeVersion, tuple[str, ...]]]:
        shape, sparams = _scope_params(scope)
        rows = self.c.execute(
            _sql("forget_versions_containing", scope=shape),
            {"text": text, "text_json": _json_fragment(text), "marks": _json(DECODING_MARKS),
             **sparams},
        ).fetchall()
        return self._with_targets(rows)

    def chain(self, entity: str) -> list[tuple[NodeVersion, tuple[str, ...]]]:
        return self._with_targets(self.c.execute(_sql("chain"), {"entity": entity}).fetchall())

    def edges_containing(self, text: str, scope: ScopeFilter) -> list[Edge]:
        shape, sparams = _scope_params(scope)
        rows = self.c.execute(
            _sql("forget_edges_containing", scope=shape),
            {"text_json": _json_fragment(text), **sparams},
        )
        return [_edge(r) for r in rows]

    def edges_touching(self, entity: str) -> list[Edge]:
        rows = self.c.execute(_sql("forget_edges_touching"), {"entity": entity})
        return [_edge(r) for r in rows]

    def rewrite_versions(self, rewrites: Sequence[Rewritten]) -> None:
        update, clear = _sql("forget_rewrite_version"), _sql("forget_clear_link_targets")
        for r in rewrites:
            cur = self.c.execute(update, {
                "id": r.id, "title": r.title, "body": r.body, "data": _dump(r.data),
                "retired_reason": r.retired_reason, "erased": r.erased,
            })
            if cur.rowcount != 1:
                raise errors.NotFound(f"no version {r.id}; nothing was rewritten")
            self.c.execute(clear, {"id": r.id})
        rows = [
            {"version_id": r.id, "target": t, "tail": tail(t)} for r in rewrites for t in r.targets
        ]
        if rows:
            self.c.executemany(_sql("insert_link_target"), rows)
        self.rewrote = self.rewrote or bool(rewrites)

    def rewrite_edges(self, rewrites: Sequence[tuple[str, dict[str, Any]]]) -> None:
        self.c.executemany(
            _sql("forget_rewrite_edge"), [{"id": i, "data": _dump(d)} for i, d in rewrites]
        )
        self.rewrote = self.rewrote or bool(rewrites)

    def record_audit(self, entry: AuditEntry) -> None:
        self.c.execute(_sql("forget_record_audit"), {
            "id": entry.id, "at": entry.at, "who": entry.who, "via": entry.via,
            "action": entry.action, "reason": entry.reason, "scope": entry.scope,
            "node": entry.node, "versions": entry.versions, "edges": entry.edges,
        })
        self.c.execute(_sql("forget_open_pass"), {"audit_id": entry.id})


def _targets_of_versions(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, list[str]]:
    targets: dict[str, list[str]] = {}
    for vid, target in conn.execute(_sql("targets_of_versions"), {"ids": _json(ids)}):
        targets.setdefault(vid, []).append(target)
    return targets


def _link_candidates(conn: sqlite3.Connection, tails: Sequence[str]) -> list[Candidate]:
    rows = conn.execute(_sql("link_candidates"), {"tails": _json(dict.fromkeys(tails))})
    return [Candidate(entity=r[0], kind=r[1], key=r[2], scope=r[3]) for r in rows]


def _insert_versions(
    conn: sqlite3.Connection,
    versions: Sequence[NodeVersion],
    targets: Sequence[tuple[str, ...]],
    *,
    ignore: bool,
) -> int:
    # `ignore` skips rows whose id exists (a re-run copy); any other constraint still fails.
    rows = []
    for v in versions:
        row = _params(v)
        norm = normalize(v.key) if v.key is not None else None
        row["key_norm"] = norm
        row["key_tail"] = tail(norm) if norm is not None else None
        rows.append(row)
    # rowcount counts the rows this statement inserted; total_changes would also count the
    # FTS5 trigger's writes.
    inserted = conn.executemany(_sql("insert_version", ignore=ignore), rows).rowcount
    link_rows = [
        {"version_id": v.id, "target": t, "tail": tail(t)}
        for v, ts in zip(versions, targets, strict=True)
        for t in ts
    ]
    if link_rows:
        conn.executemany(_sql("insert_link_target"), link_rows)
    return inserted


def _insert_edges(conn: sqlite3.Connection, edges: Sequence[Edge], *, ignore: bool) -> int:
    before = conn.total_changes
    conn.executemany(_sql("insert_edge", ignore=ignore), [_params(e) for e in edges])
    return conn.total_changes - before


def _file_id(path: Path) -> tuple[int, int] | None:
    """The (device, inode) of the file at ``path`` now; None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _refuse_a_file_as_folder(path: Path) -> None:
    """A store to create below a file (``RYVEM_DATA_DIR`` naming a file): one line that says
    so (it read "cannot open …/dev.db: File exists")."""
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise errors.InvalidInput(
                    f"cannot create the store {path}: {parent} is a file, not a folder"
                )
            return


def _refuse_a_non_file(path: Path) -> None:
    """InvalidInput when ``path`` (followed, if a link) is a folder, device or other special
    file: SQLite would answer "unable to open database file" or a "disk I/O error"."""
    mode = os.stat(path).st_mode
    if stat.S_ISDIR(mode):
        raise errors.InvalidInput(f"{path} is a folder; give the path of a SQLite file")
    if not stat.S_ISREG(mode):
        raise errors.InvalidInput(
            f"{path} is a device or special file; give the path of a SQLite file"
        )


class _Activity:
    """Searches running in this process, and when the last one ended (see _searching)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active = 0
        self.quiet_since = time.monotonic()


_ACTIVITY = _Activity()
P = ParamSpec("P")


def _counts_as_search(method: Callable[P, T]) -> Callable[P, T]:
    """Mark the method's run a search, so posting fillers wait for a quiet moment."""

    @functools.wraps(method)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        with _ACTIVITY.lock:
            _ACTIVITY.active += 1
        try:
            return method(*args, **kwargs)
        finally:
            with _ACTIVITY.lock:
                _ACTIVITY.active -= 1
                _ACTIVITY.quiet_since = time.monotonic()

    return run


class SqliteRepository:
    """``GraphRepository`` over one SQLite file."""

    backend = "sqlite"

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self._lock = threading.RLock()
        self.path = path
        self.location = str(path)
        self.read_only_reason: str | None = None  # why writes are refused, when they are
        self._vectors: dict[str, Any] = {}  # model -> vectors.VectorCache
        # model -> (vector_state.generation, other_vector_models' answer at it)
        self._other_models: dict[str, tuple[int, dict[str, int]]] = {}
        # Full-text search reads through a second connection of its own (opened on first
        # use, ``_searcher``), so a hybrid search's lexical leg runs beside its vector leg —
        # one SQLite connection serialises its statements — and a long ranking never holds
        # ``_lock`` against writes and the vector side. WAL: it sees every committed write.
        self._connect_searcher: Callable[[], sqlite3.Connection] | None = None
        self._search_conn: sqlite3.Connection | None = None
        self._search_lock = threading.Lock()
        self._counts: dict[tuple[bool, str], int] = {}  # see _counted
        self._counted_version: int | None = None
        # Current search's postings in memory (postings.PostingCache) when numpy is
        # installed, and as-of search's (every version's text; made by the first as-of
        # search); guarded like the search.
        self._postings: Any = None
        self._postings_all: Any = None
        self._postings_off = importlib.util.find_spec("numpy") is None
        self._file_id: tuple[int, int] | None = None  # (device, inode) of the file opened
        self._file_at = path

    # --- lifecycle ----------------------------------------------------------------------
    @classmethod
    def open(
        cls, path: str | Path, *, read_only: bool = False, progress: IndexProgress | None = None
    ) -> SqliteRepository:
        """Open (creating when missing: folder 0700, file 0600) the store at ``path``.

        A store of an older schema migrates on open, in one transaction; a migration that
        rebuilds the search index reports ``progress("search index", done, total)`` per batch
        of rows when given (the CLI draws a bar from it).

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
                _refuse_a_file_as_folder(path)
                path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
                os.close(fd)
            else:
                _refuse_a_non_file(path)
                unwritable = unwritable_reason(path)
            if read_only or unwritable is not None:
                query = "mode=ro"
                if unwritable is not None and not Path(f"{path}-wal").exists():
                    query += "&immutable=1"
                target, uri = f"{path.absolute().as_uri()}?{query}", True
            else:
                target, uri = str(path), False

            def connect() -> sqlite3.Connection:
                return sqlite3.connect(
                    target, uri=uri, isolation_level=None, check_same_thread=False,
                    timeout=_BUSY_TIMEOUT_MS / 1000,
                )

            conn = connect()
        except OSError as e:
            raise from_os_error(e, where) from e
        except sqlite3.Error as e:
            raise from_sqlite(e, where) from e
        repo = cls(conn, path)
        repo._connect_searcher = connect
        repo._file_id = _file_id(path.absolute())
        repo._file_at = path.absolute()  # a later chdir must not move it
        repo.read_only_reason = unwritable or ("opened read-only" if read_only else None)
        read_only = repo.read_only_reason is not None
        try:
            conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            repo._refuse_a_foreign_database()
            if not read_only:
                mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
                if mode != "wal":
                    repo._retry_busy(lambda: conn.execute("PRAGMA journal_mode = WAL"))
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = OFF")
            repo._migrate(read_only, progress)
        except errors.RyvemError:
            conn.close()
            raise
        except DRIVER_ERRORS as e:  # the first statements read the schema: damage shows here
            conn.close()
            raise from_sqlite(e, where) from e
        return repo

    @classmethod
    def absent(cls, path: str | Path) -> SqliteRepository:
        """A stand-in for a store not created yet at ``path``: an empty store in memory that
        answers every read as a new store would and refuses every write
        (:class:`~ryvem.errors.StoreReadOnly`), touching no file. What a reading command
        opens when the file is missing, so a read (or a mistyped ``--db``) creates nothing."""
        path = Path(path).expanduser()
        try:
            conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            repo = cls(conn, path)
            conn.execute("PRAGMA foreign_keys = OFF")
            repo._migrate(False)
        except sqlite3.Error as e:
            raise from_sqlite(e, str(path)) from e
        repo.read_only_reason = f"there is no store at {path} yet (reading creates none)"
        return repo

    def _refuse_a_foreign_database(self) -> None:
        """Refuse another program's SQLite file before anything writes to it.

        Every migration runs in one transaction with the ``user_version`` it reaches, so a
        file at version 0 that already holds a table, index, view or trigger was made by
        someone else; giving it ryvem's schema (or switching it to WAL) would change a file
        that is not ours.
        """
        if self._conn.execute("PRAGMA user_version").fetchone()[0] != 0:
            return
        if self._conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is not None:
            raise errors.BackendUnavailable(
                f"{self.location} is an SQLite database but not a ryvem store (it holds "
                "tables ryvem did not make); ryvem leaves it unchanged: use a new file"
            )

    def _migrate(self, read_only: bool, progress: IndexProgress | None = None) -> None:
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version > len(_MIGRATIONS):
            raise errors.BackendUnavailable(
                f"{self.location} has schema version {version}; this ryvem knows up to "
                f"{len(_MIGRATIONS)}: upgrade ryvem"
            )
        if version == len(_MIGRATIONS):
            return
        if read_only:
            raise errors.StoreReadOnly(
                f"{self.location} needs a schema upgrade but is opened read-only"
            )

        def migrate(c: sqlite3.Connection) -> None:
            current = c.execute("PRAGMA user_version").fetchone()[0]
            for i in range(current, len(_MIGRATIONS)):
                for statement in _split_sql(_MIGRATIONS[i]):
                    c.execute(statement)
                if i + 1 in _FILLS_FTS:
                    _fill_fts(c, progress)
                c.execute(f"PRAGMA user_version = {i + 1}")

        self._in_transaction(migrate)

    def close(self) -> None:
        kept = [c for c in (self._postings, self._postings_all) if c is not None]
        for postings in kept:
            # stopped before the locks are taken: it may be waiting for the search's lock
            postings.filler.close()
        with self._lock, self._search_lock:
            self._conn.close()
            for postings in kept:
                postings.close()
            self._postings = self._postings_all = None
            if self._search_conn is not None:
                self._search_conn.close()
                self._search_conn = None
            self._connect_searcher = None

    @property
    def reads_concurrently(self) -> bool:
        """Searches may run from several threads at once (``ports.ReadsConcurrently``): the
        full-text search has a connection of its own."""
        return self._connect_searcher is not None

    def _search_snapshot(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn`` on the full-text search's connection (``_conn`` for a store opened without
        one) inside one read transaction, so its several statements read one snapshot."""
        lock = self._lock if self._connect_searcher is None else self._search_lock
        with lock:
            try:
                conn = self._searcher()

                def attempt() -> T:
                    if conn.in_transaction:
                        return fn(conn)
                    conn.execute("BEGIN")
                    try:
                        out = fn(conn)
                    except BaseException:
                        conn.execute("ROLLBACK")
                        raise
                    conn.execute("COMMIT")
                    return out

                return self._retry_busy(attempt)
            except sqlite3.Error as e:
                raise from_sqlite(e, self.location) from e

    def _counted(self, conn: sqlite3.Connection) -> dict[tuple[bool, str], int] | None:
        """The phrases' row counts (their df) read by earlier searches, while they still
        hold: a question's common words recur from question to question, and counting one
        ("page", in half of 100,000 rows) costs 1 to 2 ms, each time. Kept for the search
        connection only, which never writes, and forgotten as soon as its ``data_version``
        moves — some other connection committed — read inside the search's own snapshot
        (after a first read has fixed it). The caller holds ``_search_lock``."""
        if conn is self._conn:  # a store without a search connection: its writes are ours
            return None
        conn.execute(_sql("snapshot_start")).fetchall()
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self._counted_version or len(self._counts) > _COUNTS_KEPT:
            self._counts = {}
            self._counted_version = version
        return self._counts

    @staticmethod
    def _quiet_for() -> float:
        """Seconds since the last search of any store in this process ended (0 while one
        runs): a filler reading for one store would slow down another's search as much."""
        with _ACTIVITY.lock:
            return 0.0 if _ACTIVITY.active else time.monotonic() - _ACTIVITY.quiet_since

    def settle(self, timeout: float = 30.0) -> bool:
        """Wait until the phrases current search keeps in memory are read and installed
        (True), or ``timeout`` seconds pass (False). Searches never need this — until then
        they rank on FTS5 — but benchmarks and tests measure the state after it."""
        deadline = time.monotonic() + timeout
        for every_version in (False, True):
            postings = self._postings_all if every_version else self._postings
            if postings is None:
                continue
            if not postings.filler.wait(max(0.0, deadline - time.monotonic())):
                return False
            while self._take_in(every_version):
                pass
        return True

    def _take_in(self, every_version: bool = False) -> int:
        """Install some of what a posting filler read (see ``PostingCache.take_in``)."""
        postings = self._postings_all if every_version else self._postings
        if postings is None:
            return 0
        return int(self._search_snapshot(
            lambda conn: postings.take_in(lambda q, p: conn.execute(q, p).fetchall())))

    def _posting_cache(self, every_version: bool) -> Any:
        """The postings in memory (:mod:`postings`) that current search (or, for
        ``every_version``, as-of search) may rank from, or None: they need numpy and a store
        whose search has a connection of its own (the filler opens another). The caller
        holds the search's lock."""
        if self._postings_off or self._connect_searcher is None:
            return None
        postings = self._postings_all if every_version else self._postings
        if postings is None:
            from ryvem.adapters.sqlite.postings import Filler, PostingCache

            sql = _posting_sql(every_version)
            filler = Filler(self._connect_searcher, sql, self._quiet_for,
                            functools.partial(self._take_in, every_version),
                            keep=(lambda: None) if every_version else self._keep_postings)
            postings = PostingCache(sql, filler, skip=STOP_WORDS)
            if every_version:
                self._postings_all = postings
            else:
                self._postings = postings
        return postings

    def _keep_postings(self) -> None:
        """Keep what current search's postings in memory hold in the store (migration_008),
        so the next process's first searches rank from it (``PostingCache._load_kept``).
        Offered by the filler when it is idle after reading (see ``Filler._idle``).

        Phrases not kept yet are added beside the rows already kept when those are of the
        same forget epoch and less than ``_KEEP_BEHIND`` versions behind this process's;
        otherwise everything is written anew. Never waits for a writer: a store busy,
        read-only or full is simply not kept this time. Written only if no forget pass ran
        since the postings were read (a forgotten word must not come back), checked in the
        write transaction."""
        from ryvem.adapters.sqlite.postings import kept_phrases

        postings = self._postings
        if postings is None or self.read_only_reason is not None:
            return
        while self._take_in():
            pass
        connect = self._connect_searcher
        if connect is None:
            return
        with self._search_lock:
            held = postings.version, set(postings.postings)
        conn = connect()
        try:
            kept = conn.execute(_sql("text_rows_kept")).fetchone()
            if kept is not None and held[0] is not None and tuple(kept[:3]) == (
                    held[0].mark, held[0].newest, held[0].closed) and held[1] <= {
                    r[0] for r in conn.execute(_sql("text_keys_kept"))}:
                return  # nothing new since it was kept (the idle filler's periodic offer)
            # Written anew (not only added to): first take every kept phrase this process
            # never asked, so that they are kept again.
            anew = held[0] is None or not _kept_near(kept, held[0])

            def imaged(c: sqlite3.Connection) -> Any:
                if anew:
                    postings.load_kept_all(lambda q, p: c.execute(q, p).fetchall())
                return postings.image()

            image = self._search_snapshot(imaged)
            if image is None:
                return
            ours = image.version
            conn.execute("PRAGMA busy_timeout = 0")
            conn.execute("BEGIN IMMEDIATE")
            try:
                if conn.execute(_sql("newest_audit")).fetchone()[0] != ours.mark:
                    conn.execute("ROLLBACK")  # forgotten since: not kept
                    return
                kept = conn.execute(_sql("text_rows_kept")).fetchone()
                if kept is not None and kept[0] == ours.mark and (
                        kept[1] > ours.newest or kept[2] > ours.closed):
                    conn.execute("ROLLBACK")  # another process kept a later snapshot
                    return
                if _kept_near(kept, ours):
                    have = {r[0] for r in conn.execute(_sql("text_keys_kept"))}
                    new = [p for p in image.phrases if p[0] not in have]
                    rows = kept[3], kept[9]  # ids, byteorder
                else:
                    for statement in _split_sql(_sql("text_kept_clear")):
                        conn.execute(statement)
                    conn.execute(_sql("text_rows_keep"), image.rows)
                    new, rows = image.phrases, (image.rows["ids"], image.rows["byteorder"])
                conn.executemany(_sql("text_posting_keep"), kept_phrases(*rows, new))
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.Error:
            return  # busy, read-only or full: not kept this time
        finally:
            conn.close()

    def _searcher(self) -> sqlite3.Connection:
        """The full-text search's connection (opened on first use; ``_conn`` when the store
        has none). The caller holds ``_search_lock``, or only inspects it (tests)."""
        if self._connect_searcher is None:
            return self._conn
        if self._search_conn is None:
            conn = self._connect_searcher()
            conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA query_only = ON")
            self._search_conn = conn
            self._counted_version = None  # counts kept speak of another connection's versions
        return self._search_conn

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
                if not is_busy(e) or time.monotonic() > deadline:
                    raise
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.25)

    def _in_transaction(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        if self.read_only_reason is not None:
            raise errors.StoreReadOnly(
                f"cannot write {self.location}: {self.read_only_reason}; nothing was written "
                "(reads still work)"
            )
        if self._file_id is not None and _file_id(self._file_at) != self._file_id:
            # SQLite writes on into the open, unlinked file: every write would be lost when
            # the process ends, while each one reported success (a store deleted or
            # replaced under a running server).
            raise errors.BackendUnavailable(
                f"{self.location} was deleted or replaced after this process opened it; "
                "nothing was written: start again to open the store at that path anew"
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
                raise from_sqlite(e, self.location) from e

    def _in_snapshot(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` in one read transaction (one snapshot), always rolled back."""
        conn = self._conn

        def attempt() -> T:
            conn.execute("BEGIN")
            try:
                return fn(conn)
            finally:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")

        with self._lock:
            try:
                return self._retry_busy(attempt)
            except sqlite3.Error as e:
                raise from_sqlite(e, self.location) from e

    def write(self, fn: Callable[[WriteTx], T]) -> T:
        return self._in_transaction(lambda conn: fn(_Tx(conn)))

    # --- forgetting (the Forgets capability) -------------------------------------------------
    def forget(self, fn: Callable[[ForgetTx], T], *, dry_run: bool = False) -> T:
        """Run ``fn`` in one write transaction that may rewrite content (the forget pass),
        with ``secure_delete`` on, so the pages it rewrites keep no trace of the old text. The
        full-text index is rebuilt in the same transaction when anything was rewritten; the
        pass is closed before the commit, so no later transaction inherits it. A ``dry_run``
        reads in one snapshot that is rolled back, and works on a read-only store."""
        if dry_run:
            return self._in_snapshot(lambda conn: fn(_ForgetTx(conn)))

        def run(conn: sqlite3.Connection) -> T:
            tx = _ForgetTx(conn)
            result = fn(tx)
            if tx.rewrote:
                conn.execute(_sql("forget_rebuild_fts"))
                conn.execute(_sql("forget_rebuild_fts_all"))
                conn.execute(_sql("forget_mark_cleanup"))
            conn.execute(_sql("forget_close_pass"))
            return result

        with self._lock:
            self._pragma("secure_delete = ON")
            try:
                return self._in_transaction(run)
            finally:
                self._pragma("secure_delete = OFF")

    def _pragma(self, setting: str) -> None:
        if self.read_only_reason is None:
            try:
                self._conn.execute(f"PRAGMA {setting}")
            except sqlite3.Error as e:
                raise from_sqlite(e, self.location) from e

    def scrub(self, progress: Progress | None = None) -> None:
        """Leave no old page anywhere in the store's files: checkpoint the WAL into the main
        file and truncate it, rebuild the main file (VACUUM, so no free page keeps old text),
        and checkpoint and truncate again. Waits for readers and writers of other processes
        (up to a minute each step), else says what is left to do."""
        report = progress or (lambda stage, done, total: None)
        if self.read_only_reason is not None:
            raise errors.StoreReadOnly(
                f"cannot clean {self.location}: {self.read_only_reason}"
            )
        with self._lock:
            conn = self._conn
            try:
                report("checkpoint", 0, 1)
                self._checkpoint()
                report("checkpoint", 1, 1)
                ticks = 0

                def tick() -> int:
                    nonlocal ticks
                    ticks += 1
                    report("vacuum", ticks, None)
                    return 0

                report("vacuum", 0, None)
                conn.set_progress_handler(tick, _VACUUM_TICK)
                conn.execute("PRAGMA temp_store = MEMORY")  # no temporary copy on disk
                try:
                    self._retry_busy(lambda: conn.execute("VACUUM"))
                finally:
                    conn.set_progress_handler(None, 0)
                    conn.execute("PRAGMA temp_store = DEFAULT")
                report("vacuum", ticks, ticks)
                self._retry_busy(lambda: conn.execute(_sql("forget_cleanup_done")))
                self._checkpoint()
            except sqlite3.Error as e:  # after a commit: "nothing was written" would be false
                raise from_sqlite(e, self.location, outcome=None) from e

    def cleanup_pending(self) -> bool:
        try:
            with self._lock:
                return bool(self._conn.execute(_sql("forget_cleanup_pending")).fetchone()[0])
        except sqlite3.Error as e:
            raise from_sqlite(e, self.location) from e

    def _checkpoint(self) -> None:
        """``wal_checkpoint(TRUNCATE)`` until it completes (another process's reader or
        writer can hold it back), for up to a minute."""
        deadline = time.monotonic() + _WRITE_RETRY_SECONDS
        delay = 0.01
        while True:
            busy = self._retry_busy(
                lambda: self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            )[0]
            if not busy:
                return
            if time.monotonic() > deadline:
                raise errors.OperationalError(
                    f"{self.location}: another process kept the write-ahead log busy for a "
                    "minute, so old pages may remain in it"
                )
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.25)

    def audit(self) -> list[AuditEntry]:
        return [
            AuditEntry.model_construct(
                id=r[0], at=r[1], who=r[2], via=r[3], action=r[4], reason=r[5], scope=r[6],
                node=r[7], versions=r[8], edges=r[9],
            )
            for r in self._read(_sql("forget_audit"))
        ]

    def _read(self, sql: str, params: dict[str, Any] | Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._retry_busy(lambda: self._conn.execute(sql, params).fetchall())
            except DRIVER_ERRORS as e:
                raise from_sqlite(e, self.location) from e

    def _one_node(self, sql: str, params: dict[str, Any]) -> NodeVersion | None:
        rows = self._read(sql, params)
        return _node(rows[0]) if rows else None

    # --- reads --------------------------------------------------------------------------
    def get_version(self, id: str) -> NodeVersion | None:
        return self._one_node(_sql("get_version"), {"id": id})

    def get_identity(
        self, identity: Identity, as_of: int | None, known_at: int | None = None
    ) -> NodeVersion | None:
        kind, key, scope = identity
        return self._one_node(
            _sql("get_identity", as_of=as_of, known_at=known_at),
            {"kind": kind, "key": key, "scope": scope, **_when(as_of, known_at)},
        )

    def latest_of_identity(
        self, identity: Identity, known_at: int | None = None
    ) -> NodeVersion | None:
        kind, key, scope = identity
        return self._one_node(
            _sql("latest_of_identity"),
            {"kind": kind, "key": key, "scope": scope, "known_at": known_at},
        )

    def get_entity(
        self, entity: str, as_of: int | None, known_at: int | None = None
    ) -> NodeVersion | None:
        return self._one_node(
            _sql("get_entity", as_of=as_of, known_at=known_at),
            {"entity": entity, **_when(as_of, known_at)},
        )

    def get_heads(
        self, entities: Sequence[str], as_of: int | None, known_at: int | None = None
    ) -> dict[str, NodeHead]:
        rows = self._read(
            _sql("get_heads", as_of=as_of, known_at=known_at),
            {"entities": _json(entities), **_when(as_of, known_at)},
        )
        return {r[1]: NodeHead._make(r) for r in rows}

    def find_by_key(
        self, key: str, scope: ScopeFilter, as_of: int | None, known_at: int | None = None
    ) -> list[NodeVersion]:
        shape, sparams = _scope_params(scope)
        rows = self._read(
            _sql("find_by_key", as_of=as_of, known_at=known_at, scope=shape),
            {"key": key, **_when(as_of, known_at), **sparams},
        )
        return [_node(r) for r in rows]

    def chain(self, entity: str) -> list[NodeVersion]:
        return [_node(r) for r in self._read(_sql("chain"), {"entity": entity})]

    def edges_of(
        self, entity: str, as_of: int | None, known_at: int | None = None
    ) -> list[Edge]:
        rows = self._read(
            _sql("edges_of", as_of=as_of, known_at=known_at),
            {"entity": entity, **_when(as_of, known_at)},
        )
        return [_edge(r) for r in rows]

    @_counts_as_search
    def search(
        self,
        query: SearchQuery,
        kinds: Sequence[str],
        scope: ScopeFilter,
        limit: int,
        as_of: int | None,
        known_at: int | None = None,
        every_version: bool = False,
    ) -> list[SearchHit]:
        shape, sparams = _scope_params(scope)
        params: dict[str, Any] = {
            "kinds": _json(kinds), "limit": limit, **_when(as_of, known_at), **sparams,
        }
        by_kind = bool(kinds)
        when: dict[str, Any] = {"as_of": as_of, "known_at": known_at}
        if query.empty:
            rows = self._read(_sql("recent", **when, scope=shape, kinds=by_kind), params)
            return [_listed(r) for r in rows]
        phrases = _fts_phrases(query)
        if not phrases:
            return []
        past = as_of is not None or known_at is not None or every_version
        if past:  # the index of every version, filtered by the window (or not: ever)
            name = "search_as_of"
        elif shape == "all" and not by_kind:
            name = "search_current"  # no filter: ranked on the index alone
        else:
            name = "search_fulltext"
        ranking = _sql(name, **when, scope=shape, kinds=by_kind, ever=every_version)

        def ranked(conn: sqlite3.Connection) -> list[Any]:
            counted = self._counted(conn)
            # (every version: ranked on FTS5 — the postings' as-of path keeps one version a
            # node, the one visible then)
            postings = None if every_version else self._posting_cache(past)
            if postings is not None:
                top = postings.top_k(
                    lambda q, p: conn.execute(q, p).fetchall(), phrases, kinds, scope, limit,
                    _phrase_counter(conn, counted, every_version=past), as_of, known_at,
                )
                if top is not None:
                    return _read_ranked(conn, top)
            return _ranked_rows(conn, ranking, phrases, params, every_version=past,
                                counted=counted)

        rows = self._search_snapshot(ranked)
        return [
            SearchHit.model_construct(
                id=r[0], kind=r[1], scope=r[2], title=r[3], snippet=snippet(r[3], r[4], query),
                score=round(-float(r[5]), 6),
            )
            for r in rows
        ]

    def expand(
        self,
        frontier: Sequence[str],
        side: Literal["out", "in"],
        rels: Sequence[str] | None,
        as_of: int | None,
        scope: ScopeFilter,
        known_at: int | None = None,
    ) -> Sequence[EdgeRow]:
        shape, sparams = _scope_params(scope)
        rows = self._read(
            _sql("expand_out" if side == "out" else "expand_in", as_of=as_of, known_at=known_at,
                 scope=shape, rels=rels is not None),
            {"frontier": _json(frontier), "rels": _json(rels or ()), **_when(as_of, known_at),
             **sparams},
        )
        return rows  # (id, rel, src, dst) tuples, passed on as the store made them

    def link_candidates(self, tails: Sequence[str]) -> list[Candidate]:
        with self._lock:
            try:
                return _link_candidates(self._conn, tails)
            except sqlite3.Error as e:
                raise from_sqlite(e, self.location) from e

    def link_targets(self, version_id: str) -> tuple[str, ...]:
        return tuple(r[0] for r in self._read(_sql("link_targets"), {"id": version_id}))

    def stats(self) -> Stats:
        counts = self._read(_sql("stats_rows"))[0]
        ecounts = self._read(_sql("stats_edges"))[0]
        return Stats(
            backend=self.backend,
            location=self.location,
            current_rows=counts[0] or 0,
            superseded_rows=counts[1] or 0,
            retired_rows=counts[2] or 0,
            edges_current=ecounts[0] or 0,
            edges_closed=ecounts[1] or 0,
            kinds=dict(self._read(_sql("stats_kinds"))),
            scopes=dict(self._read(_sql("stats_scopes"))),
            rels=dict(self._read(_sql("stats_rels"))),
        )

    # --- whole-graph streams ------------------------------------------------------------
    def iter_versions(
        self, batch: int = 1000
    ) -> Iterator[list[tuple[NodeVersion, tuple[str, ...]]]]:
        last = ""
        while True:
            rows = self._read(_sql("iter_versions"), {"after": last, "batch": batch})
            if not rows:
                return
            ids = [r[0] for r in rows]
            with self._lock:
                try:
                    targets = _targets_of_versions(self._conn, ids)
                except sqlite3.Error as e:
                    raise from_sqlite(e, self.location) from e
            yield [(_node(r), tuple(targets.get(r[0], ()))) for r in rows]
            last = ids[-1]

    def iter_edges(self, batch: int = 1000) -> Iterator[list[Edge]]:
        last = ""
        while True:
            rows = self._read(_sql("iter_edges"), {"after": last, "batch": batch})
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

    # --- vectors (the StoresVectors capability) -------------------------------------------
    def vector_backlog(self, limit: int) -> list[PendingText]:
        rows = self._read(_sql("vector_backlog"), {"limit": limit})
        return [PendingText(id=r[0], ticket=r[1], title=r[2], body=r[3]) for r in rows]

    def vector_pending(self) -> int:
        return int(self._read(_sql("vector_pending"))[0][0])

    def put_vectors(
        self, model: str, rows: Sequence[tuple[PendingText, Sequence[bytes]]]
    ) -> int:
        def run(conn: sqlite3.Connection) -> int:
            stored = 0
            for pending, vectors in rows:
                got = conn.execute(
                    _sql("vector_dequeue"), {"id": pending.id, "ticket": pending.ticket}
                ).fetchone()
                if got is None:
                    continue  # closed, or queued again with a newer text, since it was read
                seq = got[0]
                conn.execute(_sql("vector_replace"), {"seq": seq})
                conn.executemany(
                    _sql("vector_insert"),
                    [{"seq": seq, "chunk": i, "model": model, "vec": v}
                     for i, v in enumerate(vectors)],
                )
                stored += 1
            return stored

        return self._in_transaction(run)

    def requeue_vectors(
        self, ids: Sequence[str] | None = None, scope: ScopeFilter | None = None
    ) -> int:
        if ids is not None:
            script, params = _sql("vector_requeue_ids"), {"ids": _json(ids)}
        else:
            shape, params = _scope_params(scope or ScopeFilter())
            script = _sql("vector_requeue_scope", scope=shape)

        def run(conn: sqlite3.Connection) -> int:
            delete, queue = _split_sql(script)
            conn.execute(delete, params)
            return conn.execute(queue, params).rowcount

        return self._in_transaction(run)

    @_counts_as_search
    def vector_search(
        self,
        model: str,
        vector: bytes,
        kinds: Sequence[str],
        scope: ScopeFilter,
        limit: int,
    ) -> list[SearchHit]:
        with self._lock:
            best = self._vector_cache(model).search(vector, kinds, scope, limit)
        if not best:
            return []
        rows = {r[0]: r for r in self._read(_sql("vector_hits"),
                                            {"seqs": _json(seq for seq, _ in best)})}
        hits = []
        for seq, score in best:
            r = rows.get(seq)
            if r is not None:  # closed since the cache was read
                hits.append(SearchHit.model_construct(
                    id=r[1], kind=r[2], scope=r[3], title=r[4],
                    snippet=opening(r[5]), score=round(score, 6),
                ))
        return hits

    def _vector_cache(self, model: str) -> Any:
        """``model``'s vectors in memory (:mod:`vectors`), brought up to the store's
        generation: read in full the first time. The caller holds ``_lock``."""
        from ryvem.adapters.sqlite.vectors import VectorCache

        cache = self._vectors.get(model)
        if cache is None:
            cache = self._vectors[model] = VectorCache(model)
        generation = self._read(_sql("vector_generation"))[0][0]
        cache.refresh(generation, self._read, _vector_sql())
        return cache

    def warm(self, vector_model: str | None) -> None:
        """``ports.WarmsUp``: the vectors of ``vector_model`` read into memory now (a first
        vector search reads 100,000 rows' in about half a second); the postings of the
        index of current rows started from what an earlier process kept in the store
        (migration_008), or else every row asked of their filler; and the store's common
        words asked of it, which reads them while no search runs. As-of search's postings
        are left for a process that searches the past."""
        if vector_model is not None:
            with self._lock:
                self._vector_cache(vector_model)
        with self._search_lock:
            postings = self._posting_cache(False)
        if postings is None:
            return
        try:  # what an earlier process kept is read now: a few ms, not a second of rows
            self._search_snapshot(
                lambda conn: postings.warm(lambda q, p: conn.execute(q, p).fetchall()))
        except errors.RyvemError:
            with self._search_lock:
                postings.warm()

    def other_vector_models(self, model: str) -> dict[str, int]:
        from ryvem.adapters.sqlite.vectors import VectorCache

        with self._lock:
            generation = self._read(_sql("vector_generation"))[0][0]
            memo = self._other_models.get(model)
            if memo is not None and memo[0] == generation:
                return dict(memo[1])
            # Cheap when there is nothing to say (every search of a store embedded by the
            # current model): the model's vector count comes from the search's own cache
            # (refreshed as the search right after would), the store's from the (node_seq,
            # chunk) index. Only a store holding other models' vectors is scanned by model.
            cache = self._vectors.get(model)
            if cache is None:
                cache = self._vectors[model] = VectorCache(model)
            cache.refresh(generation, self._read, _vector_sql())
            total = int(self._read(_sql("vector_count"))[0][0])
            others: dict[str, int] = {}
            if total != cache.size:
                rows = self._read(_sql("vector_other_models"), {"model": model})
                others = {str(r[0]): int(r[1]) for r in rows}
            self._other_models[model] = (generation, others)
            return dict(others)

    def rebuild_text_index(self) -> int:
        def run(conn: sqlite3.Connection) -> int:
            for statement in _split_sql(_sql("rebuild_text_index")):
                conn.execute(statement)
            return int(conn.execute(_sql("count_current")).fetchone()[0])

        return self._in_transaction(run)

    # --- maintenance (used by the reliability tests) --------------------------------------
    def integrity_problems(self) -> list[str]:
        """SQLite's and FTS5's own integrity checks; empty when both pass."""
        problems = [r[0] for r in self._read("PRAGMA integrity_check") if r[0] != "ok"]
        with self._lock:
            for table in ("nodes_fts", "nodes_fts_all"):
                try:
                    self._conn.execute(
                        f"INSERT INTO {table}({table}) VALUES ('integrity-check')"
                    )
                except sqlite3.Error as e:
                    problems.append(f"{table}: {e}")
        return problems


def _fill_fts(conn: sqlite3.Connection, progress: IndexProgress | None) -> None:
    """Index every row in both full-text tables, in batches of seq, reporting progress."""
    lo, hi, total = conn.execute("SELECT min(seq), max(seq), count(*) FROM nodes").fetchone()
    if not total:
        return
    if progress is not None:
        progress("search index", 0, total)
    sql = _split_sql(queries.load("fill_fts"))
    done = 0
    for start in range(lo, hi + 1, _FILL_BATCH):
        bounds = {"lo": start, "hi": start + _FILL_BATCH}
        for statement in sql:
            conn.execute(statement, bounds)
        done += conn.execute(
            "SELECT count(*) FROM nodes WHERE seq >= :lo AND seq < :hi", bounds
        ).fetchone()[0]
        if progress is not None:
            progress("search index", done, total)


def _listed(row: Sequence[Any]) -> SearchHit:
    """A hit of a listing without text: the body's start, no score."""
    return SearchHit.model_construct(
        id=row[0], kind=row[1], scope=row[2], title=row[3],
        snippet=opening(row[4] or ""), score=0.0,
    )


@cache
def _vector_sql() -> VectorSql:
    """The statements a vector cache refreshes with (made once)."""
    return VectorSql(log=_sql("vector_log"), removed=_sql("vector_removed_since"),
                     ids=_sql("vector_ids"), after=_sql("vector_rows_after"))


def _posting_sql(every_version: bool = False) -> PostingSql:
    """The statements a posting cache reads with: over the index of current rows, or of
    every version's text (as-of search)."""
    if every_version:
        return PostingSql(state=_sql("text_all_index_state"),
                          rows_after=_sql("text_all_rows_after"),
                          text_after=_sql("text_all_of_rows_after"), ids=_sql("text_ids"),
                          ids_in=_sql("text_ids_in"), phrase=_sql("phrase_scores_all"),
                          vocabulary_table=_sql("text_all_vocabulary_table"),
                          vocabulary=_sql("text_all_vocabulary"),
                          window_ends=_sql("text_window_ends_in"))
    return PostingSql(state=_sql("text_index_state"), rows_after=_sql("text_rows_after"),
                      text_after=_sql("text_of_rows_after"), ids=_sql("text_ids"),
                      ids_in=_sql("text_ids_in"), phrase=_sql("phrase_scores"),
                      vocabulary_table=_sql("text_vocabulary_table"),
                      vocabulary=_sql("text_vocabulary"),
                      kept_rows=_sql("text_rows_kept"), kept_posting=_sql("text_posting_kept"),
                      kept_keys=_sql("text_keys_kept"))


def _kept_near(kept: Sequence[Any] | None, ours: Any) -> bool:
    """Whether the rows kept (a ``text_rows_kept`` row, or None) are of the forget epoch of
    ``ours`` (a ``postings.Version``) and less than ``_KEEP_BEHIND`` versions behind it: new
    phrases are then added beside them, else everything is written anew."""
    return (kept is not None and kept[0] == ours.mark
            and ours.newest - kept[1] < _KEEP_BEHIND and ours.closed - kept[2] < _KEEP_BEHIND)


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
