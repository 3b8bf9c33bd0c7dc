"""The application object a face holds: the lazily opened store, and the default-scope rules.

A ``Session`` is what the CLI holds for one invocation and the MCP server for its whole
process, and what a library user opens (``ryvem.backends.open_session``). It owns:

* **the store**, opened on first need and once (thread-safe); a failed open is not
  remembered, so a store that comes up later is picked up without restarting the host;
* **the default scope**: an explicit scope wins (and is validated before the store is
  opened); otherwise the working directory's repository scope from ``ryvem.json``, else
  ``global`` (:mod:`ryvem.application.workspace`); reading never writes anything;
* **writing with the default scope**: :meth:`write` validates the request, then — only when
  it is valid — mints the repository identity (``ryvem.json`` and the ``repo`` node) if this
  is the first write in a git repository, then writes. Concurrent first writes in one process
  mint one identity.

The store comes from a zero-argument opener that the composition root
(:mod:`ryvem.backends`) builds from settings, so this layer never names an adapter.

**Search and its vectors** (:mod:`ryvem.application.search`): :meth:`search` runs a mode
(lexical, semantic, hybrid) with the local embedder when it is installed. Writes never embed:
the store queues each new current row in the write's own transaction, and the queue drains
outside it, in bounded batches — in a background thread in a long-lived host (the MCP
server calls :meth:`start_background_embedding`; every write wakes it), before a search when
the backlog is small (a CLI ``search`` after a few ``put`` s), at the end of an import, and
in :meth:`reindex`. A search that finds a larger backlog says how many rows it misses.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ryvem.application import search as recall
from ryvem.application import workspace
from ryvem.application.service import EdgeView, Service, WriteResult
from ryvem.application.transcript import TranscriptSummary, import_transcript
from ryvem.application.vault import TITLE_FROM, ImportSummary, import_vault
from ryvem.application.vault import Progress as ImportProgress
from ryvem.application.workspace import Minted
from ryvem.domain.model import NodeVersion
from ryvem.domain.scopes import GLOBAL, parse_scope, parse_scope_filter
from ryvem.domain.validation import validate_kind
from ryvem.errors import InvalidInput
from ryvem.ports import GraphRepository, RebuildsTextIndex, StoresVectors, WarmsUp

if TYPE_CHECKING:
    from ryvem.embedding import Embedder

__all__ = ["SMALL_BACKLOG", "Imported", "Minted", "Reindexed", "Session", "Written"]

SMALL_BACKLOG = 32  # a search embeds a backlog up to this size before it runs
QUESTION_CACHE = 256  # questions whose embeddings a session keeps (least recently used go)
_WORKER_POLL_SECONDS = 30.0  # the background embedder also looks for other writers' rows
EmbedderLoader = Callable[[], "Embedder | str"]  # the embedder, or why there is none


def default_embedder() -> Embedder | str:
    """The default local embedder (:mod:`ryvem.embedding`), or the one-line reason it is off."""
    from ryvem.embedding import RUNTIME_MODULES, load_default, probe

    reason = probe()
    if reason is not None:
        return reason
    try:
        embedder = load_default()
        for module in RUNTIME_MODULES:  # the model loads them lazily: fail here, not mid-search
            importlib.import_module(module)
    except Exception as e:  # installed but broken (a missing .so, a wheel for another CPU)
        # Search is then lexical and says why, as when the extra is not installed.
        why = " ".join(str(e).split())[:200]
        return f"semantic search is off: the model could not load ({type(e).__name__}: {why})"
    return embedder if embedder is not None else "semantic search is off"


@dataclass(frozen=True, slots=True)
class Written:
    """What :meth:`Session.write` did."""

    result: WriteResult
    minted: Minted | None = None

    def record(self) -> dict[str, Any]:
        return self.result.version.record()


@dataclass(frozen=True, slots=True)
class Imported:
    """What :meth:`Session.import_folder` did: the import's summary, the scope it wrote
    into, and the identity it minted (a first import in a git repository), if any."""

    summary: ImportSummary
    scope: str
    minted: Minted | None = None


@dataclass(frozen=True, slots=True)
class Reindexed:
    """What :meth:`Session.reindex` did."""

    text_rows: int | None  # rows in the rebuilt full-text index (None: not rebuilt)
    queued: int  # versions whose vectors were dropped and queued again
    embedded: int  # versions embedded now
    pending: int  # still waiting (semantic search off, or a read-only store)
    model: str | None
    note: str | None = None

    def record(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _unknown_kinds(repo: GraphRepository, kinds: Sequence[str]) -> list[str]:
    """A note for each asked kind no node of the store has (an empty answer to a misspelt
    kind, "decisions" for "decision", read as "no such memories"), with the closest kind."""
    import difflib

    known = sorted(repo.stats().kinds)
    out = []
    for kind in kinds:
        if kind not in known:
            close = difflib.get_close_matches(kind, known, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            out.append(f"no node of the store is of kind {kind!r}{hint}")
    return out


class Session:
    """One face's handle on ryvem: the store, opened lazily, and the default-scope rules."""

    def __init__(
        self,
        opener: Callable[[], GraphRepository],
        *,
        location: str = "",
        cwd: str | Path | None = None,
        embedder: EmbedderLoader | None = None,
    ) -> None:
        self._opener = opener
        self._repo: GraphRepository | None = None
        self._open_lock = threading.Lock()
        self._mint_lock = threading.Lock()
        self.location = location
        self.cwd = None if cwd is None else Path(cwd)  # a str too (as ``db`` takes one)
        self._embedder_loader = embedder or default_embedder
        self._embedder: Embedder | str | None = None
        self._embedder_lock = threading.Lock()
        self._questions = _QuestionCache(QUESTION_CACHE)
        # The (store, model) whose vectors were all found of that model: not asked again.
        self._vectors_checked: tuple[int, str] | None = None
        self._worker: threading.Thread | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._warmer: threading.Thread | None = None
        self._warm_cancel = threading.Event()
        self._warm_lock = threading.Lock()

    # --- the store ------------------------------------------------------------------------
    @property
    def repo(self) -> GraphRepository:
        """The store, opened on first use."""
        repo = self._open()
        assert repo is not None
        return repo

    def _open(self, unless: threading.Event | None = None) -> GraphRepository | None:
        """The store, opened now if it is not yet — unless ``unless`` is set (then None)."""
        with self._open_lock:
            if unless is not None and unless.is_set():
                return None
            if self._repo is None:
                self._repo = self._opener()
                self.written()  # the background embedder waits for an open store
            return self._repo

    def close(self) -> None:
        self._stop_warming()
        self.stop_background_embedding()
        with self._open_lock:
            if self._repo is not None:
                self._repo.close()
                self._repo = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- scopes ---------------------------------------------------------------------------
    def default_scope(self, *, mint: bool = False) -> str:
        """The working directory's scope (``repo:<uuid>`` from ryvem.json), else ``global``.

        ``mint`` gives the repository its identity on first touch (a writing action only).
        """
        if not mint:
            return workspace.locate(self.cwd).scope
        with self._mint_lock:  # concurrent first writes in this process mint one identity
            return workspace.default_scope(self.repo, mint=True, cwd=self.cwd)

    def service(self, scope: str | None = None, *, mint: bool = False) -> Service:
        """The use cases with ``scope`` as the default (validated before the store opens),
        else the working directory's scope (see :meth:`default_scope`).

        The service opens the store only when a use case needs it, after validating its
        input: a refused request creates no store (only ``mint`` opens it here)."""
        chosen = parse_scope(scope) if scope is not None else None
        if chosen is None:
            chosen = self.default_scope(mint=mint)
        return Service(opener=self._store, default_scope=chosen)

    def everywhere(self) -> Service:
        """The use cases for reads that name their scopes themselves (stats, export); the
        store opens on first use, as in :meth:`service`."""
        return Service(opener=self._store, default_scope=GLOBAL)

    def _store(self) -> GraphRepository:
        return self.repo

    # --- the one write call every face makes ----------------------------------------------
    def write(
        self,
        kind: str,
        title: str,
        *,
        key: str | None = None,
        scope: str | None = None,
        body: str | None = None,
        data: object = None,
        valid_from: object = None,
    ) -> Written:
        """Insert-or-supersede one node (see :meth:`Service.write`), in ``scope`` or the
        default scope; a first write in a git repository without ``ryvem.json`` mints it.
        ``valid_from`` dates it in valid time (default now; see :meth:`Service.prepare`).

        Nothing is written — no ryvem.json, no node, not even an empty store — unless the
        request is valid.
        """
        if scope is not None:
            svc = self.service(scope)
            written = Written(svc.write_many([svc.prepare(kind, title, key=key, body=body,
                                                          data=data, valid_from=valid_from)])[0])
            self.written()
            return written
        before = workspace.locate(self.cwd)  # a malformed ryvem.json fails here, first
        node = self.everywhere().prepare(  # validates without opening the store
            kind, title, key=key, body=body, data=data, valid_from=valid_from
        )
        chosen = self.default_scope(mint=True)  # the input is valid: now mint if needed
        result = Service(self.repo, default_scope=chosen).write_many(
            [dataclasses.replace(node, scope=chosen)]
        )[0]
        self.written()
        return Written(result, workspace.minted_since(before, self.cwd))

    def import_folder(
        self,
        folder: str | Path,
        *,
        scope: str | None = None,
        kind: str = "page",
        retire_missing: bool = False,
        title_from: str = "name",
        git_history: bool = False,
        progress: ImportProgress | None = None,
    ) -> Imported:
        """Import a markdown vault (only read): every page, or with ``git_history`` each
        commit that touched one, then the working tree (see ``application.vault`` and
        ``application.vault_history``). Into ``scope``, else the default scope — which a first
        import in a git repository mints, unless ``ryvem.json`` would land inside the vault.
        Everything is checked before the store opens or anything is minted."""
        if str(folder) == "":  # Path("") is ".": an unset variable must not import the cwd
            raise InvalidInput("DIR must not be empty (give . for the working directory)")
        base = Path(folder).expanduser()
        if not base.is_dir():
            raise InvalidInput(
                f"not a directory: {folder}" if base.exists() else f"no such directory: {folder}")
        if title_from not in TITLE_FROM:
            raise InvalidInput(
                f"--title-from must be one of {', '.join(TITLE_FROM)}, got {title_from!r}")
        validate_kind(kind)
        minting = scope is None and workspace.may_mint_for(base, self.cwd)
        before = workspace.locate(self.cwd) if minting else None
        svc = self.service(scope, mint=minting)
        minted = None if before is None else workspace.minted_since(before, self.cwd)
        if git_history:
            from ryvem.application.vault_history import import_history  # git: when asked

            summary = import_history(svc, base, kind=kind, retire_missing=retire_missing,
                                     progress=progress, title_from=title_from)
        else:
            summary = import_vault(svc, base, kind=kind, retire_missing=retire_missing,
                                   progress=progress, title_from=title_from)
        self.written()
        return Imported(summary, svc.default_scope, minted)

    def import_transcript(
        self, file: str | Path, *, scope: str | None = None, kind: str = "turn",
        key_prefix: str | None = None,
    ) -> TranscriptSummary:
        """Import a conversation as one memory a turn, chained by ``follows`` edges
        (``application.transcript``), into ``scope`` or the default scope (never minting)."""
        validate_kind(kind)
        summary = import_transcript(self.service(scope), file, kind=kind, key_prefix=key_prefix)
        self.written()
        return summary

    # --- the other writes, with the default scope (never minting) -------------------------
    def retire(
        self,
        ref: str,
        *,
        reason: str | None = None,
        scope: str | None = None,
        valid_to: object = None,
    ) -> NodeVersion:
        """:meth:`Service.retire` in ``scope`` or the default scope."""
        return self.service(scope).retire(ref, reason=reason, valid_to=valid_to)

    def link(
        self,
        from_ref: str,
        to_ref: str,
        rel: str,
        *,
        data: object = None,
        scope: str | None = None,
        valid_from: object = None,
    ) -> EdgeView:
        """:meth:`Service.link` in ``scope`` or the default scope."""
        return self.service(scope).link(from_ref, to_ref, rel, data=data, valid_from=valid_from)

    def unlink(
        self,
        from_ref: str,
        to_ref: str,
        rel: str,
        *,
        scope: str | None = None,
        valid_to: object = None,
    ) -> EdgeView:
        """:meth:`Service.unlink` in ``scope`` or the default scope."""
        return self.service(scope).unlink(from_ref, to_ref, rel, valid_to=valid_to)

    @property
    def embedding_in_background(self) -> bool:
        return self._worker is not None

    def written(self) -> None:
        """Tell the background embedder (when it runs) that rows were queued."""
        if self._worker is not None:
            self._wake.set()

    # --- search and its vectors -------------------------------------------------------------
    def embedder(self) -> Embedder | None:
        """The local embedder (loaded once), or None when semantic search is off."""
        with self._embedder_lock:
            if self._embedder is None:
                self._embedder = self._embedder_loader()
            return None if isinstance(self._embedder, str) else self._embedder

    def semantic_off(self) -> str | None:
        """None when semantic search can run on this store, else the one-line reason."""
        if self.embedder() is None:
            assert isinstance(self._embedder, str)
            return self._embedder
        if not isinstance(self.repo, StoresVectors):
            return f"semantic search is off: the {self.repo.backend} store keeps no vectors"
        return None

    def search(
        self,
        text: str | None = None,
        *,
        mode: str | None = None,
        kinds: Sequence[str] = (),
        scope: str | None = None,
        all_scopes: bool = False,
        limit: int = 20,
        as_of: object = None,
        known_at: object = None,
        embed_backlog: int = SMALL_BACKLOG,
        history: bool = False,
    ) -> recall.SearchResult:
        """Search in ``mode`` (None: hybrid when the model is installed, else lexical with a
        note), in ``scope`` (a scope or shape; None: the default scope) or every scope.

        Before a semantic search, a backlog of at most ``embed_backlog`` queued rows is
        embedded (the background embedder is woken instead, when it runs); a larger one is
        left and counted in the result's ``pending`` and notes.

        ``history`` searches every version, whenever it held (lexical, as a past search is):
        one hit a node, its best-ranked version, each hit saying its ``status`` (current,
        superseded or retired) and window — "what did we use before?" has its answer only
        in a version no longer current.
        """
        svc = self.everywhere() if scope is not None or all_scopes else self.service()
        request = svc.search_request(
            text, kinds=kinds or (), scope=scope, all_scopes=all_scopes, limit=limit, as_of=as_of,
            known_at=known_at, history=history,
        )
        semantic_off = None if mode == "lexical" else self.semantic_off()
        strategy, notes = recall.resolve_mode(
            mode, text=request.text, as_of=request.as_of, known_at=request.known_at,
            semantic_off=semantic_off, every_version=request.every_version,
        )
        repo = self.repo
        embedder = self.embedder() if strategy.semantic else None
        pending = 0
        if strategy.semantic and isinstance(repo, StoresVectors) and embedder is not None:
            pending = repo.vector_pending()
            if pending and self._worker is not None:
                self._wake.set()
            elif 0 < pending <= embed_backlog:
                recall.embed_pending(repo, embedder, limit=pending)
                pending = repo.vector_pending()
            if pending:
                where = ("being embedded in the background" if self._worker is not None
                         else "not embedded yet (ryvem graph reindex --pending embeds them)")
                rows = "1 row is" if pending == 1 else f"{pending} rows are"
                notes = (*notes, f"{rows} {where}; {'it has' if pending == 1 else 'they have'} "
                         "no semantic rank")
            stale = self._other_models_note(repo, embedder)
            if stale is not None:
                notes = (*notes, stale)
        asking = None if embedder is None else self._questions.wrap(embedder)
        hits = recall.run_strategy(strategy, repo, request, asking)
        if not hits and request.kinds:
            notes = (*notes, *_unknown_kinds(repo, request.kinds))
        return recall.SearchResult(hits, strategy.name, notes, pending)

    def _other_models_note(self, repo: StoresVectors, embedder: Embedder) -> str | None:
        """One line when current rows hold vectors of another model than ``embedder``'s
        (a store embedded before the model changed): they have no semantic rank until
        ``graph reindex`` embeds them again. None once every vector is of this model (then
        this session does not ask again: its own writes are embedded by this model)."""
        key = (id(repo), embedder.name)
        if self._vectors_checked == key:
            return None
        others = repo.other_vector_models(embedder.name)
        if not others:
            self._vectors_checked = key
            return None
        return (
            f"{sum(others.values())} rows hold vectors of another model "
            f"({', '.join(sorted(others))}) and have no semantic rank with {embedder.name}: "
            "run `ryvem graph reindex` to embed them again"
        )

    def embed_pending(
        self, *, limit: int | None = None, progress: recall.Progress | None = None
    ) -> int:
        """Embed queued rows now (all of them, or ``limit``); 0 when semantic search is off."""
        embedder = self.embedder()
        repo = self.repo
        if embedder is None or not isinstance(repo, StoresVectors):
            return 0
        return recall.embed_pending(repo, embedder, limit=limit, progress=progress)

    def vector_pending(self) -> int:
        """Rows waiting for vectors (0 on a store that keeps none)."""
        repo = self.repo
        return repo.vector_pending() if isinstance(repo, StoresVectors) else 0

    def reindex(
        self,
        scope: str | None = None,
        *,
        pending_only: bool = False,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> Reindexed:
        """Rebuild the lexical index and the vectors (of ``scope``: a scope or shape; None:
        every scope); ``pending_only`` only embeds what is queued. Progress is reported as
        ``(phase, done, total)`` with phase ``text`` or ``vectors``."""
        if pending_only and scope is not None:  # the queue is drained whole
            raise InvalidInput("pending_only embeds every queued row, whatever its scope; a "
                               "scope re-embeds that scope's rows: give one of them")
        filt = parse_scope_filter(scope) if scope is not None else None
        repo = self.repo
        text_rows = None
        if not pending_only and isinstance(repo, RebuildsTextIndex):
            if progress is not None:
                progress("text", 0, 1)
            text_rows = repo.rebuild_text_index()
            if progress is not None:
                progress("text", 1, 1)
        if not isinstance(repo, StoresVectors):
            return Reindexed(text_rows, 0, 0, 0, None,
                             f"the {repo.backend} store keeps no vectors")
        embedder = self.embedder()
        if embedder is None:
            # Nothing can be embedded again, so nothing is dropped: requeueing would delete
            # every stored vector and leave semantic search blind until the model is back.
            return Reindexed(text_rows, 0, 0, repo.vector_pending(), None,
                             f"{self.semantic_off()}; the stored vectors are kept as they "
                             "are and queued rows stay queued")
        queued = 0 if pending_only else repo.requeue_vectors(scope=filt)

        def report(done: int, total: int) -> None:
            if progress is not None:
                progress("vectors", done, total)

        embedded = recall.embed_pending(repo, embedder, progress=report)
        stale = repo.other_vector_models(embedder.name) if pending_only or filt else {}
        note = None
        if stale:
            note = (
                f"{sum(stale.values())} rows still hold vectors of another model "
                f"({', '.join(sorted(stale))}): `ryvem graph reindex` without --pending or "
                "--scope embeds them again"
            )
        return Reindexed(text_rows, queued, embedded, repo.vector_pending(), embedder.name,
                         note)

    def warm(self) -> None:
        """Open the store and read ahead what searches will need, so that the first search
        costs what the later ones do: what the store keeps in memory for search
        (``ports.WarmsUp``: on SQLite the vectors, about half a second at 100,000 rows, and
        the lexical index's common words, read in the background), then one search in the
        default scope and mode (the model's first run costs a few hundred milliseconds more
        than the next; on Neo4j the first run of each query costs tens). A long-lived face
        asks for it as it starts (:meth:`start_warming`); no search needs it."""
        self._warm(None)

    def start_warming(self) -> None:
        """:meth:`warm` in a daemon thread (``ryvem-mcp`` starts it once the host's
        handshake is done). A failure is not reported there: the face's first call opens
        the store itself and says what is wrong. :meth:`close` cancels it (a store not yet
        opened is then not opened) and waits for it."""
        with self._warm_lock:  # two threads asking at once start one warm-up
            if self._warmer is not None:
                return
            self._warm_cancel.clear()
            self._warmer = threading.Thread(target=self._warm_quietly, name="ryvem-warm",
                                            daemon=True)
            self._warmer.start()

    def _warm_quietly(self) -> None:
        # Any failure here is a first call's to report (a missing folder, a busy or broken
        # store, a server not reachable yet): this thread has no one to tell.
        with contextlib.suppress(Exception):
            self._warm(self._warm_cancel)

    def _warm(self, unless: threading.Event | None) -> None:
        def cancelled() -> bool:
            return unless is not None and unless.is_set()

        repo = self._open(unless)
        if repo is None:
            return
        embedder = self.embedder()
        model = embedder.name if embedder is not None and isinstance(repo, StoresVectors) else None
        if isinstance(repo, WarmsUp) and not cancelled():
            repo.warm(model)
        if not cancelled():
            # One search shaped like an agent's first (the default scope and mode): it runs
            # the model once and pays what is still cold on the search's path — its imports,
            # and on Neo4j the driver's and the server's first run of these queries.
            self.search("what do we know", limit=1, embed_backlog=0)

    def _stop_warming(self, timeout: float = 10.0) -> None:
        with self._warm_lock:
            warmer, self._warmer = self._warmer, None
            if warmer is not None:
                self._warm_cancel.set()
        if warmer is not None:
            warmer.join(timeout)

    def start_background_embedding(self) -> bool:
        """Embed queued rows in a daemon thread, woken by every write (and every
        ``_WORKER_POLL_SECONDS`` for other processes' writes), once the store is open.
        False (and no thread) when semantic search is off."""
        if self._worker is not None:
            return True
        if self.embedder() is None:
            return False
        self._stop.clear()
        self._worker = threading.Thread(
            target=self._embed_in_background, name="ryvem-embedder", daemon=True
        )
        self._worker.start()
        self._wake.set()
        return True

    def stop_background_embedding(self, timeout: float = 10.0) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            self._stop.set()
            self._wake.set()
            worker.join(timeout)

    def _embed_in_background(self) -> None:
        embedder = self.embedder()
        assert embedder is not None
        while not self._stop.is_set():
            self._wake.wait(_WORKER_POLL_SECONDS)
            self._wake.clear()
            repo = self._repo  # never opens the store itself: a face's first call does
            if self._stop.is_set() or repo is None or not isinstance(repo, StoresVectors):
                continue
            try:
                while not self._stop.is_set():
                    if not recall.embed_pending(repo, embedder, limit=recall.BATCH):
                        break
            except Exception:  # the store went away or is read-only: try again when woken
                self._stop.wait(1.0)


class _QuestionCache:
    """The embeddings of the last ``size`` questions a session asked, least recently used
    dropped first, so an agent asking again (or paging) pays no model run. Keyed by the
    model's name and the exact text; thread-safe."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._vectors: OrderedDict[tuple[str, str], Any] = OrderedDict()

    def wrap(self, embedder: Embedder) -> Embedder:
        return _CachedQuestions(embedder, self)

    def embed(self, embedder: Embedder, text: str) -> Any:
        key = (embedder.name, text)
        with self._lock:
            if key in self._vectors:
                self._vectors.move_to_end(key)
                return self._vectors[key]
        vectors = embedder.embed([text])
        with self._lock:
            self._vectors[key] = vectors
            while len(self._vectors) > self.size:
                self._vectors.popitem(last=False)
        return vectors


@dataclass(frozen=True, slots=True)
class _CachedQuestions:
    """An :class:`Embedder` whose one-text calls (a search's question) go through the cache."""

    inner: Embedder
    cache: _QuestionCache

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> Any:
        if len(texts) == 1:
            return self.cache.embed(self.inner, texts[0])
        return self.inner.embed(texts)

    def chunk(self, text: str) -> list[str]:
        return self.inner.chunk(text)
