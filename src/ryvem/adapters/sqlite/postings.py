"""FTS5's BM25 top *k* of an OR query, computed from postings kept in memory.

FTS5 ranks ``a OR b OR c … ORDER BY bm25 LIMIT k`` by scoring every row that holds any of the
phrases, about 1 µs a row here: a question whose words are common ("page", in half of 100,000
rows) costs tens of milliseconds however well :mod:`~ryvem.adapters.sqlite.topk` stops early.
A search connection that serves many questions (an MCP server, a library session) keeps, per
common phrase, the rows holding it and how often (the weighted hits ``w``, an integer), and
per indexed row its length in tokens, its kind and its scope. A question is then a few numpy
operations over those arrays: a 100k-row ranking in about 2 ms instead of 20 to 70.

**The same answer as FTS5, to the bit.** ``bm25()`` (fts5_aux.c) scores a row as
``Σ_i idf_i · ((w_i · (k1 + 1)) / (w_i + k1 · (1 - b + b · D / avgdl)))`` over the query's
phrases in order, ``idf = ln((N - df + ½) / (df + ½))`` (1e-6 when not positive), ``N`` and
``avgdl`` from FTS5's averages record, ``D`` the row's size from its docsize record. This
module evaluates that expression with the same operations in the same order, so its scores
equal FTS5's exactly and ties fall to the newest row as ``ORDER BY rank, rowid DESC`` does;
``tests/integration/test_sqlite_postings.py`` compares both on stores built for it, before and
after writes. A phrase's ``w`` is read back from FTS5's own score for that phrase alone (the
expression inverted, rounded to the integer it is, and checked by computing the score again:
a phrase whose check fails is simply not kept).

**In step with the store** (each search first reads one row, ``text_index_state``):

* Rows only ever join the index with a new, higher seq (a new version), so rows added since
  the last look are those above the highest seq seen; their sizes, kinds and scopes are read,
  and their hits of every kept phrase are found by tokenizing their text in a private
  in-memory FTS5 table with the store's tokenizer (more than ``DELTA_MAX`` new rows: the kept
  phrases are dropped and read again when asked).
* Rows leave the index when closed (superseded, retired). The cache counts them (rows it
  believes indexed minus rows indexed) without knowing which: while some are unresolved, a
  search takes that many more candidates and asks the store which are still indexed; beyond
  ``UNRESOLVED_MAX`` it reads every indexed seq once.
* A text changes in place only inside a forget pass, which always writes an audit entry in
  the same transaction: a new audit entry drops everything.

**Read when the process is quiet.** A search that meets a common phrase not yet in memory
ranks on FTS5 as before (a phrase of at most ``INLINE_MAX`` rows, when the rest are in memory,
it reads itself) and asks the :class:`Filler` for it: a thread with a connection of its own,
at the lowest CPU priority, that reads one phrase at a time once no search of any store in the
process has run for ``QUIET_S``, and installs what it read the same way, a few phrases per
hold of the search's lock. Before any phrase it reads every indexed row (:class:`Rows`, about
a second at 100,000 rows), so no search waits for that. It also reads ahead the store's
commonest words (stop words aside, up to ``PREFILL_SHARE`` of what is kept) after
``QUIET_AHEAD_S`` of quiet. So a one-shot CLI search costs what it did, searches back to back
leave the filler waiting, and a server that has been up a few seconds answers from memory
(``ryvem-mcp`` asks for every row and the common words as soon as the host's handshake is
done, before any search: :meth:`PostingCache.warm`, through ``SqliteRepository.warm``).

**As-of search** has a cache of its own over the index of every version's text
(``PostingSql.window_ends`` set; made by a store handle's first as-of search). Rows never
leave that index; a closure narrows a row's window instead. So each row's window on both
clocks is kept too, a search masks rows by it (:meth:`PostingCache._visible`, the
repository's ``{valid}`` fragment), and closures not yet identified — the rows held as open
less the rows the index of current rows holds — are checked on the candidates (a closure
only narrows a window, so a row hidden by the windows held stays hidden).

numpy comes with the ``semantic`` extra; without it searches run on FTS5 alone, as before.
The weights (title 4, key 2, body 1) are those every search query passes ``bm25()``.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import sqlite3
import sys
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ryvem.adapters.sqlite.topk import K1, TOKENIZE, B, varints
from ryvem.adapters.sqlite.topk import idf as _idf
from ryvem.adapters.sqlite.vectors import Codes, filter_mask
from ryvem.domain import visibility
from ryvem.domain.scopes import ScopeFilter
from ryvem.errors import RyvemError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["Filler", "Image", "PostingCache", "PostingSql", "kept_phrases", "varints"]

CACHED_FROM = 1024  # a phrase held by this many rows or more is kept (rarer: one cheap query)
ENTRIES_KEPT = 4_000_000  # postings kept in all, least recently used dropped (8 bytes each)
DELTA_MAX = 2048  # new rows tokenized apart to extend kept phrases; more: phrases dropped
UNRESOLVED_MAX = 256  # closed rows not yet identified before every indexed seq is read
QUIET_S = 0.05  # the filler reads a phrase once the store's searches are this quiet
QUIET_AHEAD_S = 0.25  # and a word read ahead (nobody asked for it yet) once this quiet
INLINE_MAX = 8192  # a common phrase not in memory yet and held by at most this many rows is
# read by the search itself (a few ms); a commoner one is left to the filler
TAKE_IN = 16  # fills installed per hold of the search's lock while searches are quiet
PREFILL_SHARE = 0.75  # of ENTRIES_KEPT: how much the filler reads ahead, commonest words first
NEVER = 2**63 - 1  # an open window's end (NULL in the store), later than any instant
_VOCABULARY = object()  # a filler job: list the store's common words, then read them
_ROWS = object()  # a filler job: read every indexed row (done before any other)
_KEEP = object()  # no job came for KEEP_AGAIN_S: what is in memory was offered to keep
KEEP_AGAIN_S = 300.0  # an idle filler offers what is in memory to keep this often

Read = Callable[[str, dict[str, Any]], list[Any]]


@dataclass(frozen=True)
class PostingSql:
    """The statements a cache reads with (the adapter's query files)."""

    state: str  # text_index_state: rows indexed, highest seq, averages record, newest audit
    rows_after: str  # text_rows_after: (seq, docsize blob, kind, scope) after a seq
    text_after: str  # text_of_rows_after: (seq, title, key, body) after a seq
    ids: str  # text_ids: every indexed seq
    ids_in: str  # text_ids_in: which of some seqs are still indexed
    phrase: str  # phrase_scores: (seq, bm25 of one phrase) of every row holding it
    vocabulary_table: str  # text_vocabulary_table: the filler's view of the indexed words
    vocabulary: str  # text_vocabulary: indexed words held by many rows, commonest first
    # Set for the index of every version's text (as-of search): text_window_ends_in, the
    # window ends of some versions. Every other statement is then that index's own.
    window_ends: str | None = None
    # Set for the index of current rows: what an earlier process kept of it in the store
    # (migration_008): text_rows_kept, text_posting_kept.
    kept_rows: str | None = None
    kept_posting: str | None = None
    kept_keys: str | None = None  # text_keys_kept


def _size(blob: bytes) -> int:
    """A docsize record's total: the row's tokens over every column."""
    return sum(blob) if max(blob, default=0) < 0x80 else sum(varints(blob))


def _one_token(phrase: str) -> bool:
    """Whether an FTS5 phrase is one quoted word (no space, no prefix star)."""
    return len(phrase) > 2 and phrase[0] == phrase[-1] == '"' and " " not in phrase[1:-1]


@dataclass(frozen=True)
class Version:
    """Where a snapshot of the store stands, as far as the index of current rows goes: the
    newest audit entry, the highest seq of any version, and how many versions are closed
    (that seq less the rows indexed). Versions are never deleted and a window closes once,
    so both numbers only grow: a snapshot is no later than another when neither is larger,
    and two snapshots with equal numbers index the same rows."""

    mark: int
    newest: int
    closed: int

    def not_after(self, other: Version) -> bool:
        return (self.mark == other.mark and self.newest <= other.newest
                and self.closed <= other.closed)


@dataclass(frozen=True)
class Fill:
    """One phrase's FTS5 scores, read by the :class:`Filler` in a snapshot of its own."""

    phrase: str
    version: Version | None  # None: the read failed (the phrase may be asked for again)
    n: int = 0  # bm25()'s N and average length in that snapshot
    avgdl: float = 0.0
    seqs: Any = None  # every row holding the phrase
    scores: Any = None  # its score for the phrase alone


@dataclass(frozen=True)
class RowArrays:
    """Indexed rows as arrays (:func:`_row_arrays`): made in the filler's thread, so a
    search never converts 100,000 rows while others wait; kinds and scopes as their
    distinct strings and each row's index into them (the cache gives the codes)."""

    ids: Any
    sizes: Any
    kind_names: list[str]
    kind_at: Any
    scope_names: list[str]
    scope_at: Any
    windows: tuple[Any, Any, Any, Any] | None  # valid_from, valid_to, recorded, closure


@dataclass(frozen=True)
class Rows:
    """Every indexed row, read by the :class:`Filler` in a snapshot of its own (the state
    row's figures with it), for a cache that has none yet."""

    version: Version
    n: int
    avgdl: float
    arrays: RowArrays | None


def _row_arrays(rows: Sequence[Sequence[Any]], windows: bool) -> RowArrays:
    """``text_rows_after`` (or ``text_all_rows_after``, with ``windows``) rows as arrays."""
    import numpy as np

    n = len(rows)

    def names(col: int) -> tuple[list[str], Any]:
        found, at = np.unique(np.array([r[col] for r in rows], dtype=object).astype(str),
                              return_inverse=True)
        return [str(x) for x in found], at.astype(np.int32)

    def moment(col: int) -> Any:
        return np.fromiter((NEVER if r[col] is None else r[col] for r in rows), np.int64, n)

    kind_names, kind_at = names(2)
    scope_names, scope_at = names(3)
    return RowArrays(
        ids=np.fromiter((r[0] for r in rows), np.int64, n),
        sizes=np.fromiter((_size(r[1]) for r in rows), np.float64, n),
        kind_names=kind_names, kind_at=kind_at, scope_names=scope_names, scope_at=scope_at,
        windows=(moment(4), moment(5), moment(6), moment(7)) if windows else None,
    )


def _where(state: Sequence[Any]) -> tuple[Version, int, float]:
    """A ``text_index_state`` row as (version, N, avgdl)."""
    n_rows, _, averages, mark, newest = state
    counts = varints(averages or b"")
    n = counts[0] if counts else 0
    avgdl = sum(counts[1:]) / n if n else 0.0
    return Version(int(mark), int(newest), int(newest) - int(n_rows)), n, avgdl


class Filler:
    """Reads common phrases' scores for a :class:`PostingCache`, in a thread of its own on a
    connection of its own, so a search that meets a phrase for the first time ranks on FTS5
    as before and the next one finds it in memory. It never touches the cache: the cache
    takes its fills (:meth:`take`) inside a search and installs those no later than the
    search's own snapshot."""

    def __init__(self, connect: Callable[[], sqlite3.Connection], sql: PostingSql,
                 quiet_for: Callable[[], float] = lambda: QUIET_S,
                 take_in: Callable[[], int] = lambda: 0,
                 keep: Callable[[], None] = lambda: None) -> None:
        self._connect = connect
        self._sql = sql
        self._quiet_for = quiet_for
        self._take_in = take_in  # installs some of what was read; how many still wait
        self._keep = keep  # keeps what is installed in the store, for the next process
        self._listed = False  # the common words to read ahead were listed
        self._fresh = False  # a phrase was read since
        self._stop = threading.Event()
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._ahead: deque[str] = deque()  # words read ahead, after every phrase asked for
        self._skip: frozenset[str] = frozenset()
        self._done: list[Fill] = []
        self._owed = 0  # phrases asked for and not yet read
        self._rows_wanted = False  # every indexed row asked for (once), read before phrases
        self._rows_read = False
        self._rows: Rows | None = None  # read, not yet taken
        self.rows_failed = False  # the last read of every row failed: the cache reads them
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._conn: sqlite3.Connection | None = None
        self._closed = False

    def request(self, phrases: Sequence[str]) -> None:
        with self._cond:
            if self._closed or not phrases:
                return
            self._owed += len(phrases)
            self._start()
        for phrase in phrases:
            self._queue.put(phrase)

    def want_rows(self) -> None:
        """Read every indexed row (and the snapshot's figures) before any phrase, so the
        cache need not read them inside a search (:meth:`take_rows`); nothing when a read
        is already on its way or waits to be taken."""
        with self._cond:
            if self._closed or (self._rows_wanted and not self._rows_read) or self._rows:
                return
            self._rows_wanted, self._rows_read = True, False
            self._owed += 1
            self._start()
        self._queue.put(_ROWS)  # wakes the thread

    def take_rows(self) -> Rows | None:
        with self._cond:
            rows, self._rows = self._rows, None
        return rows

    def read_ahead(self, skip: frozenset[str]) -> None:
        """Also read the store's common words (held by ``CACHED_FROM`` rows or more, but
        ``skip``), commonest first, up to ``PREFILL_SHARE`` of what is kept, once every
        phrase asked for is read: a long-lived process soon has its common vocabulary."""
        with self._cond:
            if self._closed:
                return
            self._skip = skip
            self._owed += 1
            self._start()
        self._queue.put(_VOCABULARY)

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="ryvem-postings",
                                            daemon=True)
            self._thread.start()

    def take(self) -> list[Fill]:
        with self._cond:
            done, self._done = self._done, []
        return done

    def wait(self, timeout: float = 30.0) -> bool:
        """Until every phrase asked for (and read ahead) is read (True), or ``timeout``
        seconds pass."""
        with self._cond:
            return self._cond.wait_for(lambda: self._owed == 0, timeout)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            conn, thread = self._conn, self._thread
        self._stop.set()
        self._queue.put(None)
        if conn is not None:
            conn.interrupt()  # a long read stops at once
        if thread is not None:
            thread.join(timeout=5.0)

    def _run(self) -> None:
        # The lowest CPU priority for this thread alone (Linux takes a thread id here;
        # elsewhere it stays as it is): on a busy machine — embedding an import, another
        # process — reading ahead takes only what is left over.
        with contextlib.suppress(AttributeError, OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        conn: sqlite3.Connection | None
        try:
            conn = self._connect()
            conn.execute(self._sql.vocabulary_table)
            conn.execute("PRAGMA query_only = ON")
        except sqlite3.Error:
            conn = None
        with self._cond:
            self._conn = conn
        try:
            while True:
                quiet = QUIET_S
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    if self._ahead:
                        item, quiet = self._ahead.popleft(), QUIET_AHEAD_S
                    else:
                        item = self._idle()
                        if item is _KEEP:
                            continue
                if item is None or self._closed:
                    return
                if self._rows_wanted and not self._rows_read:
                    while self._quiet_for() < QUIET_S:
                        if self._stop.wait(QUIET_S / 2):
                            return
                    rows = self._read_rows(conn)
                    with self._cond:
                        self._rows, self._rows_read = rows, True
                        self.rows_failed = rows is None
                        self._owed -= 1
                        self._cond.notify_all()
                if item is _ROWS:
                    continue
                if item is _VOCABULARY:
                    quiet = QUIET_AHEAD_S
                # One phrase at a time, each once the store's searches have been quiet for a
                # moment (longer for words nobody asked for yet): on two cores a read beside
                # a search slows the search down.
                while self._quiet_for() < quiet:
                    if self._stop.wait(QUIET_S / 2):
                        return
                if item is _VOCABULARY:
                    words = self._vocabulary(conn)
                    with self._cond:
                        self._ahead.extend(words)
                        self._listed = conn is not None
                        self._owed += len(words) - 1
                        self._cond.notify_all()
                    continue
                fills = self._read(conn, [str(item)])
                with self._cond:
                    self._done.extend(fills)
                    self._owed -= 1
                    self._cond.notify_all()
                # what is read is installed while still quiet, a few at a time, so a search
                # finds it ready (and the raw scores are not held for long)
                while self._quiet_for() >= QUIET_S and not self._closed:
                    try:
                        if self._take_in() == 0:
                            break
                    except RyvemError:  # the store closed, or busy: a search installs it
                        break
                self._fresh = True
        finally:
            with self._cond:
                self._conn = None
                self._owed = 0
                self._cond.notify_all()
            if conn is not None:
                conn.close()

    def _idle(self) -> object:
        """Nothing to read: keep what is installed for the next process when something was
        read since it was last kept (once the store's common words have been listed: a
        process that only asked a few phrases keeps nothing), then wait for the next job —
        at most ``KEEP_AGAIN_S`` once the common words are listed, to keep again when writes
        have moved the store on (``SqliteRepository._keep_postings`` decides)."""
        if self._listed and self._fresh and not self._closed:
            self._fresh = False
            self._keep_now()
        try:
            return self._queue.get(timeout=KEEP_AGAIN_S if self._listed else None)
        except queue.Empty:
            self._keep_now()
            return _KEEP

    def _keep_now(self) -> None:
        while self._quiet_for() < QUIET_AHEAD_S:
            if self._stop.wait(QUIET_S / 2):
                return
        with contextlib.suppress(RyvemError, sqlite3.Error):  # not kept this time
            self._keep()

    def _read_rows(self, conn: sqlite3.Connection | None) -> Rows | None:
        if conn is None or self._closed:
            return None
        try:
            conn.execute("BEGIN")
            try:
                version, n, avgdl = _where(conn.execute(self._sql.state).fetchone())
                rows = conn.execute(self._sql.rows_after, {"after": 0}).fetchall()
            finally:
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            return None
        arrays = _row_arrays(rows, self._sql.window_ends is not None) if rows else None
        return Rows(version, n, avgdl, arrays)

    def _vocabulary(self, conn: sqlite3.Connection | None) -> list[str]:
        """The common words to read ahead, as phrases."""
        if conn is None or self._closed:
            return []
        try:
            rows = conn.execute(self._sql.vocabulary, {"least": CACHED_FROM}).fetchall()
        except sqlite3.Error:
            return []
        out: list[str] = []
        budget = int(ENTRIES_KEPT * PREFILL_SHARE)
        for term, df in rows:
            if term in self._skip:
                continue
            budget -= int(df)
            if budget < 0:
                break
            out.append('"' + str(term).replace('"', '""') + '"')
        return out

    def _read(self, conn: sqlite3.Connection | None, batch: list[str]) -> list[Fill]:
        import numpy as np

        if conn is None or self._closed:
            return [Fill(p, None) for p in batch]
        out: list[Fill] = []
        try:
            conn.execute("BEGIN")
            try:
                version, n, avgdl = _where(conn.execute(self._sql.state).fetchone())
                for p in batch:
                    found = conn.execute(self._sql.phrase, {"match": p}).fetchall()
                    out.append(Fill(
                        p, version, n, avgdl,
                        np.fromiter((r[0] for r in found), np.int64, len(found)),
                        -np.fromiter((r[1] for r in found), np.float64, len(found)),
                    ))
            finally:
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            got = {f.phrase for f in out}
            out += [Fill(p, None) for p in batch if p not in got]
        return out


class PostingCache:
    """One store's common phrases and indexed rows, kept in step with ``nodes_fts``."""

    def __init__(self, sql: PostingSql, filler: Filler,
                 skip: frozenset[str] = frozenset()) -> None:
        self.sql = sql
        self.filler = filler
        self._skip = skip  # words never asked alone (stop words): not read ahead
        self._scratch: sqlite3.Connection | None = None
        self._keys: dict[str, str] = {}  # phrase -> key (see _key)
        self._token_keys: set[str] = set()  # keys that are one token of the store's
        self._read_ahead = False
        self._kept_tried = False  # what an earlier process kept was looked for (once)
        self._kept_keys: frozenset[str] = frozenset()  # the phrases kept with those rows
        # every version's text (as-of search): rows never leave that index; a closure narrows
        # a row's window instead (see refresh)
        self.every = sql.window_ends is not None
        self._reset()

    def _reset(self) -> None:
        import numpy as np

        self.ids: npt.NDArray[np.int64] = np.zeros(0, np.int64)  # seqs, ascending
        self.sizes: npt.NDArray[np.float64] = np.zeros(0, np.float64)  # D, in tokens
        self.kinds: npt.NDArray[np.int32] = np.zeros(0, np.int32)
        self.scopes: npt.NDArray[np.int32] = np.zeros(0, np.int32)
        self.dead: npt.NDArray[np.bool_] = np.zeros(0, np.bool_)  # closed since read
        self.dead_count = 0
        # every version's text only: each row's window on both clocks (NEVER while open as
        # far as this cache knows), and how many rows it holds as open
        self.valid_from: npt.NDArray[np.int64] = np.zeros(0, np.int64)
        self.valid_to: npt.NDArray[np.int64] = np.zeros(0, np.int64)
        self.recorded: npt.NDArray[np.int64] = np.zeros(0, np.int64)
        self.closure_recorded: npt.NDArray[np.int64] = np.zeros(0, np.int64)
        self.open_count = 0
        # rows closed since read that are not yet marked dead (every version's text: not yet
        # given their window's end)
        self.unresolved = 0
        self.top = 0  # the highest seq read
        self.version: Version | None = None  # the snapshot the arrays were last brought to
        self.n = 0  # bm25()'s N and average row length, from the averages record
        self.avgdl = 0.0
        # key (see _key) -> (positions in ids, int32; weighted hits, float32), least
        # recent first; and the phrase each was read as (a MATCH that finds the same rows)
        self.postings: OrderedDict[str, tuple[Any, Any]] = OrderedDict()
        self.match_of: dict[str, str] = {}
        self.entries = 0
        self.kind_codes = Codes()
        self.scope_codes = Codes()
        self.asked: set[str] = set()  # phrases asked of the filler, not yet installed
        self.refused: set[str] = set()  # keys whose scores did not read back exactly
        self.waiting: list[Fill] = []  # fills read in a snapshot later than the last search's
        # the rows an earlier process kept were started from (_load_kept), read in this
        # snapshot: its kept phrases' positions hold while no row is compacted away
        self.kept: Version | None = None
        self._kept_order = "<"  # their arrays' byte order, as numpy spells it

    def _start_over(self) -> None:
        """Drop the arrays and every phrase, keeping what was asked of the filler (its fills
        are checked against the snapshot when they come)."""
        asked, waiting = self.asked, self.waiting
        self._reset()
        self.asked, self.waiting = asked, waiting

    # --- keeping in step ---------------------------------------------------------------
    def refresh(self, read: Read) -> Version | None:
        """Bring the arrays to the store's snapshot that ``read`` reads; return where it is.
        None when no rows are held (none read yet, or dropped by a forget since): the filler
        is asked to read them all, and only if its last read failed does this one."""
        import numpy as np

        state = read(self.sql.state, {})[0]
        n_rows, max_id = int(state[0]), int(state[1])
        version, n, avgdl = _where(state)
        if self.version is not None and version.mark != self.version.mark:
            self._start_over()  # a forget changed texts in place
        if self.version is None:
            if not self.filler.rows_failed:
                self.filler.want_rows()
                return None
            self._start_over()
        self.version, self.n, self.avgdl = version, n, avgdl
        if max_id > self.top:
            self._add_rows(read)
        if self.every:
            self.unresolved = self.open_count - n_rows  # open as far as known, less open
            if self.unresolved < 0 or self.unresolved > UNRESOLVED_MAX:
                self._close_all(read, version, n, avgdl)
            return version
        believed = len(self.ids) - self.dead_count
        self.unresolved = believed - n_rows
        if self.unresolved < 0 or self.unresolved > UNRESOLVED_MAX:
            live = np.fromiter((r[0] for r in read(self.sql.ids, {})), np.int64)
            dead = ~np.isin(self.ids, live, assume_unique=True)
            if self.unresolved < 0 or len(live) != len(self.ids) - int(np.count_nonzero(dead)):
                self._start_over()  # not the rows this cache read: read them all again
                self.version, self.n, self.avgdl = version, n, avgdl
                self._add_rows(read)
                dead = np.zeros(len(self.ids), np.bool_)
            self.dead, self.dead_count, self.unresolved = dead, int(np.count_nonzero(dead)), 0
            if 4 * self.dead_count > len(self.ids):
                self._compact()
        return version

    def _add_rows(self, read: Read) -> None:
        after = self.top
        rows = read(self.sql.rows_after, {"after": after})
        if not rows:
            return
        n = len(rows)
        first = len(self.ids)
        self._append(_row_arrays(rows, self.every))
        if not self.postings:
            return
        if n > DELTA_MAX:
            self.postings.clear()
            self.match_of.clear()
            self.entries = 0
            return
        self._extend(read, after, first, list(self.postings))  # keys

    def _adopt(self) -> None:
        """Start from the rows the filler read, when none are held yet (``refresh`` then
        brings them to the search's snapshot, as it does any rows held)."""
        rows = self.filler.take_rows()
        if rows is None or self.version is not None:
            return
        self.version, self.n, self.avgdl = rows.version, rows.n, rows.avgdl
        if rows.arrays is not None:
            self._append(rows.arrays)

    def _append(self, rows: RowArrays) -> None:
        """Add rows of seqs above every seq held."""
        import numpy as np

        kinds = np.array([self.kind_codes.code(k) for k in rows.kind_names], np.int32)
        scopes = np.array([self.scope_codes.code(s) for s in rows.scope_names], np.int32)
        self.ids = np.concatenate([self.ids, rows.ids])
        self.sizes = np.concatenate([self.sizes, rows.sizes])
        self.kinds = np.concatenate([self.kinds, kinds[rows.kind_at]])
        self.scopes = np.concatenate([self.scopes, scopes[rows.scope_at]])
        self.dead = np.concatenate([self.dead, np.zeros(len(rows.ids), np.bool_)])
        if self.every and rows.windows is not None:
            begun, ends, recorded, end_recorded = rows.windows
            self.valid_from = np.concatenate([self.valid_from, begun])
            self.valid_to = np.concatenate([self.valid_to, ends])
            self.recorded = np.concatenate([self.recorded, recorded])
            self.closure_recorded = np.concatenate([self.closure_recorded, end_recorded])
            self.open_count += int(np.count_nonzero(ends == NEVER))
        if len(self.ids):
            self.top = int(self.ids[-1])

    def _close_all(self, read: Read, version: Version, n: int, avgdl: float) -> None:
        """Every version's text: give each row closed since read its window's end, found as
        the rows held as open that the index of current rows no longer holds (or, when the
        two disagree otherwise, read every row again)."""
        import numpy as np

        live = np.fromiter((r[0] for r in read(self.sql.ids, {})), np.int64)
        held = np.flatnonzero(self.valid_to == NEVER)
        closed = held[~np.isin(self.ids[held], live)]
        if len(held) - len(closed) != len(live):
            self._start_over()  # not the rows this cache read: read them all again
            self.version, self.n, self.avgdl = version, n, avgdl
            self._add_rows(read)
        elif len(closed):
            self._learn_ends(read, closed)
        self.unresolved = self.open_count - len(live)

    def _learn_ends(self, read: Read, at: Any) -> None:
        """Read the window ends of the rows at positions ``at`` (held as open) and keep those
        that are closed now."""
        import numpy as np

        rows = read(self.sql.window_ends or "", {"seqs": json.dumps(
            [int(s) for s in self.ids[at]])})
        ends = [r for r in rows if r[1] is not None]
        if not ends:
            return
        where = np.searchsorted(self.ids, np.fromiter((r[0] for r in ends), np.int64))
        self.valid_to[where] = np.fromiter((r[1] for r in ends), np.int64)
        self.closure_recorded[where] = np.fromiter((r[2] for r in ends), np.int64)
        self.open_count -= len(ends)
        self.unresolved -= len(ends)

    def _visible(self, at: Any, as_of: int | None, known_at: int | None) -> Any:
        """Which rows at ``at`` (positions, or a slice) are visible at (``as_of``,
        ``known_at``) by the windows this cache holds: the one rule of
        :mod:`ryvem.domain.visibility`, over arrays (an open end is NEVER, later than any
        instant)."""
        cols = {
            "valid_from": self.valid_from, "valid_to": self.valid_to,
            "recorded_at": self.recorded, "closure_recorded_at": self.closure_recorded,
        }
        ops = visibility.Operators[Any](
            le=lambda f, x: cols[f][at] <= x,
            gt=lambda f, x: cols[f][at] > x,
            null=lambda f: cols[f][at] == NEVER,
            both=lambda a, b: a & b,
            either=lambda a, b: a | b,
        )
        rule = visibility.window(as_of is not None, known_at is not None)
        return visibility.evaluate(rule, ops, {"as_of": as_of, "known_at": known_at})

    def _extend(self, read: Read, after: int, first: int, keys: list[str]) -> None:
        """Kept phrases' hits in the rows from position ``first`` on (seqs above ``after``),
        found by indexing their text alone in a private FTS5 table with the store's
        tokenizer, each row's ``w`` read back from that table's scores."""
        import numpy as np

        scratch = self._scratch_table()
        scratch.execute("BEGIN")
        scratch.execute("DELETE FROM t")
        scratch.executemany(
            "INSERT INTO t(rowid, title, key, body) VALUES (?, ?, ?, ?)",
            [tuple(r) for r in read(self.sql.text_after, {"after": after})],
        )
        scratch.execute("COMMIT")  # FTS5 writes its averages record when a transaction ends
        block = scratch.execute("SELECT block FROM t_data WHERE id = 1").fetchone()
        counts = varints(block[0]) if block else []
        if counts and counts[0]:
            n, avgdl = counts[0], sum(counts[1:]) / counts[0]
            present = {'"' + str(r[0]).replace('"', '""') + '"'
                       for r in scratch.execute("SELECT term FROM tv")}
            for phrase in keys:
                if phrase not in self.postings:
                    continue
                if phrase in self._token_keys and phrase not in present:
                    continue  # a word none of the new rows holds
                found = scratch.execute(
                    "SELECT rowid, bm25(t, 4.0, 2.0, 1.0) FROM t WHERE t MATCH ?",
                    (self.match_of[phrase],),
                ).fetchall()
                if not found:
                    continue
                seqs = np.fromiter((r[0] for r in found), np.int64, len(found))
                scores = -np.fromiter((r[1] for r in found), np.float64, len(found))
                at = first + np.searchsorted(self.ids[first:], seqs)
                w = _weights(scores, self.sizes[at], _idf(len(found), n), avgdl)
                if w is None:
                    self._drop(phrase)
                    continue
                idx, weights = self.postings[phrase]
                self.postings[phrase] = (np.concatenate([idx, at.astype(np.int32)]),
                                         np.concatenate([weights, w.astype(np.float32)]))
                self.entries += len(found)
        scratch.execute("DELETE FROM t")

    def _scratch_table(self) -> sqlite3.Connection:
        """A private in-memory database: ``t``, a table like nodes_fts (rows tokenized
        apart) with its vocabulary ``tv``, and ``w``, one column with its vocabulary ``wv``
        (a word's token)."""
        if self._scratch is None:
            conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            conn.execute(
                f"CREATE VIRTUAL TABLE t USING fts5(title, key, body, tokenize='{TOKENIZE}')")
            conn.execute("CREATE VIRTUAL TABLE tv USING fts5vocab(t, row)")
            conn.execute(f"CREATE VIRTUAL TABLE w USING fts5(x, tokenize='{TOKENIZE}')")
            conn.execute("CREATE VIRTUAL TABLE wv USING fts5vocab(w, row)")
            self._scratch = conn
        return self._scratch

    def _key(self, phrase: str) -> str:
        """What a phrase is kept under: a quoted single word by the one token the store's
        tokenizer makes of it (``"pages"`` and ``"page"`` find the same rows with the same
        hits, so the same score), any other phrase by itself."""
        key = self._keys.get(phrase)
        if key is not None:
            return key
        key = phrase
        inner = phrase[1:-1]
        if _one_token(phrase):
            scratch = self._scratch_table()
            scratch.execute("DELETE FROM w")
            scratch.execute("INSERT INTO w(x) VALUES (?)", (inner.replace('""', '"'),))
            tokens = [r[0] for r in scratch.execute("SELECT term FROM wv")]
            if len(tokens) == 1:
                key = '"' + tokens[0].replace('"', '""') + '"'
                self._token_keys.add(key)
        if len(self._keys) > 100_000:
            self._keys.clear()
        self._keys[phrase] = key
        return key

    def _install(self, read: Read, fill: Fill, now: Version) -> None:
        """Keep a phrase the filler read in a snapshot no later than ``now`` (the search's):
        its rows still indexed, and the rows indexed since found as :meth:`_extend` does."""
        import numpy as np

        assert fill.version is not None
        key = self._key(fill.phrase)
        if len(fill.seqs) < 1 or key in self.postings:
            return
        at = np.searchsorted(self.ids, fill.seqs)
        ok = at < len(self.ids)
        ok[ok] = self.ids[at[ok]] == fill.seqs[ok]  # a row compacted away is closed: dropped
        idx, scores = at[ok], fill.scores[ok]
        w = _weights(scores, self.sizes[idx], _idf(len(fill.seqs), fill.n), fill.avgdl)
        if w is None:
            self.refused.add(key)  # ranked by a query of its own from now on, not asked again
            return
        self.postings[key] = (idx.astype(np.int32), w.astype(np.float32))
        self.match_of[key] = fill.phrase
        self.entries += len(idx)
        if fill.version.newest < now.newest:
            first = int(np.searchsorted(self.ids, fill.version.newest, side="right"))
            if first < len(self.ids):
                self._extend(read, fill.version.newest, first, [key])
        while self.entries > ENTRIES_KEPT and len(self.postings) > 1:
            self._drop(next(iter(self.postings)))

    def _compact(self) -> None:
        import numpy as np

        keep = ~self.dead
        where = np.cumsum(keep) - 1
        for phrase, (idx, w) in list(self.postings.items()):
            alive = keep[idx]
            self.postings[phrase] = (where[idx[alive]].astype(np.int32), w[alive])
        self.entries = sum(len(i) for i, _ in self.postings.values())
        self.ids, self.sizes = self.ids[keep], self.sizes[keep]
        self.kinds, self.scopes = self.kinds[keep], self.scopes[keep]
        self.dead = np.zeros(len(self.ids), np.bool_)
        self.dead_count = 0
        self.kept = None  # positions moved: kept phrases no longer fit

    def _drop(self, key: str) -> None:
        idx, _ = self.postings.pop(key)
        self.match_of.pop(key, None)
        self.entries -= len(idx)

    def close(self) -> None:
        self.filler.close()
        if self._scratch is not None:
            self._scratch.close()
            self._scratch = None

    # --- searching ---------------------------------------------------------------------
    def top_k(
        self,
        read: Read,
        phrases: Sequence[str],
        kinds: Sequence[str],
        scope: ScopeFilter,
        limit: int,
        count: Callable[[str], int],
        as_of: int | None = None,
        known_at: int | None = None,
    ) -> list[tuple[int, float]] | None:
        """The ``limit`` best ``(seq, rank)`` of ``phrases`` OR-ed among current rows of
        ``kinds`` (all when empty) in ``scope`` — or, for a cache of every version's text,
        among the versions visible at (``as_of``, ``known_at``) — what FTS5's ``ORDER BY
        rank, rowid DESC LIMIT limit`` returns, rank being ``-bm25`` score. ``count(phrase)``
        is FTS5's row count of a phrase in the same snapshot (of that index). None when a
        common phrase is not in memory yet (it is asked of the filler) or the index
        disagrees with what was read: the caller then ranks on FTS5."""
        import numpy as np

        df_of = {p: count(p) for p in phrases}
        common = [p for p in phrases if df_of[p] >= CACHED_FROM]
        self.waiting += self.filler.take()
        self._adopt()
        if self.version is None and not self.waiting and not self._load_kept(read):
            self._start_reading_ahead()
            self.filler.want_rows()  # nothing read yet, nothing kept: no arrays needed
            self._ask(common)
            return None
        self._start_reading_ahead()  # (after _load_kept: the words kept are not read again)
        now = self.refresh(read)
        if now is None:  # every row is being read again (after a forget)
            self._ask(common)
            return None
        self._take_in(read, now, {self._key(p) for p in common}, 0)
        missing = [p for p in common
                   if self._key(p) not in self.postings and self._key(p) not in self.refused]
        if missing and self.kept is not None:
            self._load_kept_postings(read, [self._key(p) for p in missing])
            missing = [p for p in missing if self._key(p) not in self.postings]
        if any(df_of[p] > INLINE_MAX for p in missing):
            self._ask(missing)  # ranked on FTS5 this time; all of them read while quiet
            return None
        for phrase in missing:  # a few thousand rows each: read now, and kept
            self._install(read, self._fill_now(read, phrase, now), now)
        if limit <= 0 or not phrases or not len(self.ids) or not self.n:
            return []
        scores = np.zeros(len(self.ids), np.float64)
        for phrase in phrases:
            got = self._contribution(read, phrase, df_of[phrase])
            if got is None:
                return None
            if len(got[0]):
                scores[got[0]] += got[1]
        mask = self._mask(kinds, scope)
        if self.every and (as_of is not None or known_at is not None):
            visible = self._visible(slice(None), as_of, known_at)
            mask = visible if mask is None else mask & visible
        if mask is not None:
            scores[~mask] = 0.0
        if self.every:
            return self._best_of_versions(read, scores, limit, as_of, known_at)
        return self._best(read, scores, limit)

    # --- what an earlier process kept (migration_008) -----------------------------------
    def _load_kept(self, read: Read) -> bool:
        """Start from the rows an earlier process kept in the store (:meth:`image`) when they
        are this store's as it stands or a little behind it: the same newest audit entry (no
        text changed in place since), no later than the store, at most ``DELTA_MAX`` versions
        behind (``refresh`` brings them up to date inside this search, as it does rows this
        process read). Looked for once; False when nothing usable is kept."""
        import numpy as np

        if self._kept_tried or self.sql.kept_rows is None or self.version is not None:
            return False
        self._kept_tried = True
        got = read(self.sql.kept_rows, {})
        if not got:
            return False
        mark, newest, closed, ids, sizes, kind_names, kind_at, scope_names, scope_at, order = \
            got[0]
        kept = Version(int(mark), int(newest), int(closed))
        now, _, _ = _where(read(self.sql.state, {})[0])
        if not kept.not_after(now) or now.newest - kept.newest > DELTA_MAX:
            return False
        end = "<" if order == "little" else ">"
        try:
            arrays = RowArrays(
                ids=np.frombuffer(ids, end + "i8").astype(np.int64),
                sizes=np.frombuffer(sizes, end + "i4").astype(np.float64),
                kind_names=[str(k) for k in json.loads(kind_names)],
                kind_at=np.frombuffer(kind_at, end + "i4").astype(np.int32),
                scope_names=[str(k) for k in json.loads(scope_names)],
                scope_at=np.frombuffer(scope_at, end + "i4").astype(np.int32),
                windows=None,
            )
        except (ValueError, TypeError):
            return False
        n = len(arrays.ids)
        if (not n or len(arrays.sizes) != n or len(arrays.kind_at) != n
                or len(arrays.scope_at) != n or (np.diff(arrays.ids) <= 0).any()
                or arrays.kind_at.min() < 0 or arrays.kind_at.max() >= len(arrays.kind_names)
                or arrays.scope_at.min() < 0
                or arrays.scope_at.max() >= len(arrays.scope_names)):
            return False  # not what image() writes: ignored
        self.version = kept
        self._append(arrays)
        self.kept, self._kept_order = kept, end
        if self.sql.kept_keys is not None:
            self._kept_keys = frozenset(str(r[0]) for r in read(self.sql.kept_keys, {}))
        return True

    def _load_kept_postings(self, read: Read, keys: Sequence[str]) -> None:
        """Take the kept phrases of ``keys`` (positions in the kept rows, which this cache
        started from) and find their hits in the rows indexed since, as :meth:`_install`
        does for a phrase read in an earlier snapshot. The cache has been brought to
        ``read``'s snapshot (``refresh``) first."""
        import numpy as np

        assert self.kept is not None and self.sql.kept_posting is not None
        first = int(np.searchsorted(self.ids, self.kept.newest, side="right"))
        if len(self.ids) - first > DELTA_MAX:
            self.kept = None  # too many rows since: read from FTS5 as before
            return
        end, loaded = self._kept_order, []
        for key in dict.fromkeys(keys):
            if key in self.postings or key in self.refused:
                continue
            got = read(self.sql.kept_posting, {"key": key})
            if not got:
                continue
            match, at, w = got[0]
            idx = np.frombuffer(at, end + "i4")
            if len(w) == 2 * len(idx):
                weights = np.frombuffer(w, end + "u2").astype(np.float32)
            elif len(w) == 4 * len(idx):
                weights = np.frombuffer(w, end + "f4").astype(np.float32)
            else:
                continue
            if len(idx) and (idx.min() < 0 or idx.max() >= first):
                continue
            self.postings[key] = (idx.astype(np.int32), weights)
            self.match_of[key] = str(match)
            self.entries += len(idx)
            loaded.append(key)
        if loaded and first < len(self.ids):
            self._extend(read, self.kept.newest, first, loaded)
        while self.entries > ENTRIES_KEPT and len(self.postings) > 1:
            self._drop(next(iter(self.postings)))

    def image(self) -> Image | None:
        """What this cache holds, for the next process (:meth:`_load_kept`): its rows less
        those known closed, and each phrase's rows as seqs with their weighted hits. None
        when there is nothing worth keeping (no common phrase read, or as-of search's)."""
        import numpy as np

        if self.every or self.version is None or not self.postings or not len(self.ids):
            return None
        alive = ~self.dead
        rows = {
            "mark": self.version.mark, "newest": self.version.newest,
            "closed": self.version.closed,
            "ids": self.ids[alive].astype(np.int64).tobytes(),
            "sizes": self.sizes[alive].astype(np.int32).tobytes(),
            "kind_names": json.dumps(list(self.kind_codes.codes)),
            "kind_at": self.kinds[alive].astype(np.int32).tobytes(),
            "scope_names": json.dumps(list(self.scope_codes.codes)),
            "scope_at": self.scopes[alive].astype(np.int32).tobytes(),
            "byteorder": sys.byteorder,
        }
        phrases = [(key, self.match_of[key], self.ids[idx], w)
                   for key, (idx, w) in self.postings.items()]
        return Image(self.version, rows, phrases)

    def warm(self, read: Read | None = None) -> None:
        """Start from what an earlier process kept (with ``read``, when it is usable), else
        have the filler read every row; and have it read the store's common words, as a
        first search would (``SqliteRepository.warm``), so the first searches find them."""
        if self.version is None and not (read is not None and self._load_kept(read)):
            self.filler.want_rows()
        self._start_reading_ahead()

    def _start_reading_ahead(self) -> None:
        """Have the filler read the store's common words, but the stop words and the words
        kept by an earlier process (read from the kept table when asked: one lookup)."""
        if not self._read_ahead:
            self._read_ahead = True
            kept = frozenset(k[1:-1].replace('""', '"') for k in self._kept_keys
                             if _one_token(k)) if self.kept else frozenset()
            self.filler.read_ahead(self._skip | kept)  # (both: the index's words, bare)

    def load_kept_all(self, read: Read) -> None:
        """Take every kept phrase not in memory yet (before this cache is kept anew, so that
        words kept by an earlier process and never asked here are kept again): the cache
        brought to ``read``'s snapshot first, as a search does."""
        if self.kept is None:
            return
        if self.refresh(read) is not None and self.kept is not None:
            self._load_kept_postings(read, sorted(self._kept_keys - set(self.postings)))

    def take_in(self, read: Read, most: int = TAKE_IN) -> int:
        """Install up to ``most`` of what the filler read (the store's searches being quiet:
        the filler calls this through the store, under the search's lock); return how many
        still wait."""
        self.waiting += self.filler.take()
        if not self.waiting:
            return 0
        self._adopt()
        now = self.refresh(read)
        if now is None:
            return 0  # nothing can be installed before every row is read again
        self._take_in(read, now, set(), most)
        return len(self.waiting)

    def _take_in(self, read: Read, now: Version, needed: set[str], most: int) -> None:
        """Install the fills of ``needed`` keys and up to ``most`` others, of those read in a
        snapshot no later than ``now``; drop failed ones and ones read before a forget."""
        waiting, self.waiting = self.waiting, []
        others = 0
        for fill in waiting:
            key = self._key(fill.phrase)
            if fill.version is None or fill.version.mark != now.mark:
                self.asked.discard(key)  # failed, or read before a forget: asked again later
            elif not fill.version.not_after(now):
                self.waiting.append(fill)  # read after this snapshot: next time
            elif key in needed or others < most:
                others += key not in needed
                self.asked.discard(key)
                self._install(read, fill, now)
            else:
                self.waiting.append(fill)

    def _ask(self, phrases: Sequence[str]) -> None:
        new = [p for p in dict.fromkeys(phrases) if self._key(p) not in self.asked]
        self.asked.update(self._key(p) for p in new)
        self.filler.request(new)

    def _fill_now(self, read: Read, phrase: str, now: Version) -> Fill:
        import numpy as np

        found = read(self.sql.phrase, {"match": phrase})
        return Fill(phrase, now, self.n, self.avgdl,
                    np.fromiter((r[0] for r in found), np.int64, len(found)),
                    -np.fromiter((r[1] for r in found), np.float64, len(found)))

    def _contribution(self, read: Read, phrase: str, df: int) -> tuple[Any, Any] | None:
        """``phrase``'s share of every score: (positions, bm25 of the phrase at each)."""
        import numpy as np

        key = self._key(phrase)
        kept = self.postings.get(key)
        if kept is not None:
            self.postings.move_to_end(key)
            idx, w = kept
            w64 = w.astype(np.float64)
            k = K1 * (1 - B + B * self.sizes[idx] / self.avgdl)
            return idx, _idf(df, self.n) * ((w64 * (K1 + 1.0)) / (w64 + k))
        if df == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float64)
        found = read(self.sql.phrase, {"match": phrase})
        seqs = np.fromiter((r[0] for r in found), np.int64, len(found))
        scores = -np.fromiter((r[1] for r in found), np.float64, len(found))
        idx = np.searchsorted(self.ids, seqs)
        if len(found) != df or (idx >= len(self.ids)).any() or (self.ids[idx] != seqs).any():
            return None
        return idx, scores

    def _mask(self, kinds: Sequence[str], scope: ScopeFilter) -> npt.NDArray[np.bool_] | None:
        return filter_mask(~self.dead if self.dead_count else None, self.kinds,
                           self.kind_codes, kinds, self.scopes, self.scope_codes, scope)

    def _candidates(self, scores: Any, limit: int) -> Any:
        """Positions of the ``limit + unresolved`` best scores (and every row tied with the
        last of them), best first, ties newest first: a row closed since read and not yet
        known to be may rank among them, and at most ``unresolved`` such rows exist."""
        import numpy as np

        at = np.flatnonzero(scores > 0.0)
        want = limit + self.unresolved
        if len(at) > want:
            cut = np.partition(scores[at], len(at) - want)[len(at) - want]
            at = at[scores[at] >= cut]  # every row tied with the last one kept, too
        return at[np.lexsort((-self.ids[at], -scores[at]))]

    def _best_of_versions(self, read: Read, scores: Any, limit: int, as_of: int | None,
                          known_at: int | None) -> list[tuple[int, float]]:
        """Every version's text: the best rows by the windows held, those held as open
        checked against the store while some closures are unresolved (a closure only
        narrows a window, so a row hidden by the windows held is hidden by the true ones)."""
        at = self._candidates(scores, limit)
        if self.unresolved and len(at) and (as_of is not None or known_at is not None):
            held = at[self.valid_to[at] == NEVER]
            if len(held):
                self._learn_ends(read, held)
                at = at[self._visible(at, as_of, known_at)]
        return [(int(self.ids[p]), -float(scores[p])) for p in at[:limit]]

    def _best(self, read: Read, scores: Any, limit: int) -> list[tuple[int, float]]:
        import numpy as np

        at = self._candidates(scores, limit)  # a closed row not yet marked may rank among them
        if self.unresolved:
            seqs = [int(s) for s in self.ids[at]]
            live = {int(r[0]) for r in read(self.sql.ids_in, {"seqs": json.dumps(seqs)})}
            gone = [p for p, s in zip(at, seqs, strict=True) if s not in live]
            if gone:
                self.dead[gone] = True
                self.dead_count += len(gone)
                self.unresolved -= len(gone)
                at = np.array([p for p, s in zip(at, seqs, strict=True) if s in live], np.int64)
        return [(int(self.ids[p]), -float(scores[p])) for p in at[:limit]]


@dataclass(frozen=True)
class Image:
    """A :class:`PostingCache` as the next process may start from it (:meth:`~PostingCache.
    image`): the snapshot, ``text_rows_keep``'s parameters, and per phrase (key, the phrase
    it was read as, its rows' seqs, their weighted hits)."""

    version: Version
    rows: dict[str, Any]
    phrases: list[tuple[str, str, Any, Any]]


def kept_phrases(ids: bytes, byteorder: str, phrases: Sequence[tuple[str, str, Any, Any]],
                 ) -> list[dict[str, Any]]:
    """``text_posting_keep``'s parameters for ``phrases`` (:class:`Image`) kept beside the
    rows ``ids`` (``text_rows_kept.ids``; kept by this process or an earlier one in the same
    forget epoch): each phrase's rows as positions in ``ids`` — a row not there was added
    after them (a process starting from them finds its hits as it finds any new row's) or is
    closed (never returned) — and its weighted hits, small integers kept as uint16 when they
    fit, else as float32."""
    import numpy as np

    end = "<" if byteorder == "little" else ">"
    base = np.frombuffer(ids, end + "i8")
    out = []
    for key, match, seqs, w in phrases:
        at = np.searchsorted(base, seqs)
        ok = at < len(base)
        ok[ok] = base[at[ok]] == seqs[ok]
        hits = w[ok]
        small = not len(hits) or float(hits.max()) <= 65535.0
        out.append({
            "key": key, "match": match, "at": at[ok].astype(end + "i4").tobytes(),
            "w": hits.astype(end + ("u2" if small else "f4")).tobytes(),
        })
    return out


def _weights(scores: Any, sizes: Any, idf: float, avgdl: float) -> Any | None:
    """The weighted hits ``w`` behind FTS5's scores of one phrase (bm25 inverted, rounded to
    the integer it is), or None when computing the scores again from them does not give
    exactly ``scores``."""
    import numpy as np

    k = K1 * (1 - B + B * sizes / avgdl)
    w = np.rint(scores * k / (idf * (K1 + 1.0) - scores))
    if len(w) and (w < 1.0).any():
        return None
    again = idf * ((w * (K1 + 1.0)) / (w + k))
    return w if np.array_equal(again, scores) else None
