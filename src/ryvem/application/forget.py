"""Forgetting: redact a text from every version, purge a node's content, and the audit trail.

The one place content is ever rewritten. Each use case runs in one ``Forgets.forget``
transaction — the rewrite, the audit entry and (on SQLite) the full-text index commit
together or not at all, so an interrupted redaction leaves the old store or the whole new
one — and then asks the store to ``scrub`` what its files still hold of the old text (free
pages, the write-ahead log). The rules for what a rewrite makes of a version or an edge are
pure (``ryvem.domain.redaction``); nothing here can change a skeleton field.

**Which versions had their text changed** is decided in one place, :func:`text_changed`,
called inside the transaction with their ids: anything derived from a version's text
outside the rows (semantic vectors) is dropped or re-queued there.
"""

from __future__ import annotations

import getpass
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ryvem.config import export_dir_from_env
from ryvem.domain.ids import new_id
from ryvem.domain.model import AuditEntry, Edge, NodeVersion
from ryvem.domain.redaction import (
    Rewritten,
    check_redaction_text,
    purge_version,
    redact_edge_data,
    redact_text,
    redact_version,
    skeleton_part,
)
from ryvem.domain.scopes import ALL_SCOPES, ScopeFilter
from ryvem.domain.timeutil import Clock
from ryvem.domain.validation import check_text, one_line, validate_reason
from ryvem.errors import (
    BackendError,
    CleanupIncomplete,
    InvalidInput,
    RyvemError,
    StoreReadOnly,
)
from ryvem.ports import Forgets, ForgetTx, GraphRepository, Progress, RequeuesVectors
from ryvem.safefile import is_own_page

__all__ = [
    "Actor",
    "ForgetReport",
    "NodeCount",
    "audit",
    "purge",
    "redact",
    "text_changed",
]

_MAX_WHO = 200
_MAX_NAMED = 10


@dataclass(frozen=True, slots=True)
class Actor:
    """Who forgets, for the audit trail: the OS user (CLI, library) or the MCP client."""

    who: str
    via: Literal["cli", "mcp", "library"]

    @classmethod
    def os_user(cls, via: Literal["cli", "library"] = "library") -> Actor:
        try:
            name = getpass.getuser()
        except Exception:  # no login name and no USER/LOGNAME: still say something
            name = "unknown"
        return cls.of(name, via)

    @classmethod
    def of(cls, name: object, via: Literal["cli", "mcp", "library"]) -> Actor:
        """A name cleaned to one short line (an MCP client names itself: untrusted)."""
        text = name if isinstance(name, str) else ""
        try:
            check_text("who", text)
        except InvalidInput:
            text = text.encode("utf-8", "replace").decode("utf-8").replace("\x00", " ")
        text = one_line(text)[:_MAX_WHO] or "unknown"
        return cls(text, via)


@dataclass(frozen=True, slots=True)
class NodeCount:
    """How many versions of one node a forgetting rewrote (never what they held)."""

    entity: str
    kind: str
    key: str | None
    scope: str
    versions: int

    @property
    def ref(self) -> str:
        return f"{self.kind}/{self.key}" if self.key is not None else self.entity

    def record(self) -> dict[str, Any]:
        return {"ref": self.ref, "entity": self.entity, "kind": self.kind, "key": self.key,
                "scope": self.scope, "versions": self.versions}


@dataclass(frozen=True, slots=True)
class ForgetReport:
    """What a redaction or purge did (or, dry, would do)."""

    action: Literal["redact", "purge"]
    dry_run: bool
    scope: str
    versions: int
    edges: int
    nodes: list[NodeCount]
    entry: AuditEntry | None
    changed: tuple[str, ...] = field(default=())  # the version ids whose text changed
    # A redaction of one scope or shape: versions and edges outside it that hold the text
    # (after it, or — dry — besides what it would rewrite). None: every scope was looked at.
    elsewhere: int | None = None
    # Found nothing to rewrite, but finished a cleanup an earlier run could not.
    finished_cleanup: bool = False

    @property
    def found_nothing(self) -> bool:
        """Nothing was (or, dry, would be) rewritten — for a redaction, no version nor edge
        in the scope held the text — so nothing was audited either."""
        return self.versions == 0 and self.edges == 0

    def record(self) -> dict[str, Any]:
        return {
            "type": self.action,
            "dry_run": self.dry_run,
            "scope": self.scope,
            "versions": self.versions,
            "edges": self.edges,
            "nodes": [n.record() for n in self.nodes],
            "audit": None if self.entry is None else self.entry.record(),
            **({} if self.elsewhere is None else {"elsewhere": self.elsewhere}),
            **({"finished_cleanup": True} if self.finished_cleanup else {}),
        }


def _forgets(repo: GraphRepository) -> Forgets:
    if not isinstance(repo, Forgets):
        raise BackendError(f"the {repo.backend} store cannot redact or purge")
    return repo


def text_changed(tx: ForgetTx, version_ids: Sequence[str]) -> None:
    """The versions whose title or body a forgetting rewrote, inside its transaction.

    The one hook for what is derived from a version's text outside its row: semantic
    vectors are dropped or re-queued for these ids here. The rows themselves, their link
    targets and the full-text index are rewritten by the store (``ForgetTx``)."""
    if version_ids and isinstance(tx, RequeuesVectors):
        tx.requeue_vectors(version_ids)  # SQLite: its text-update trigger already did


def _count(versions: Sequence[NodeVersion], rewritten: set[str]) -> list[NodeCount]:
    per: dict[str, list[NodeVersion]] = {}
    for v in versions:
        if v.id in rewritten:
            per.setdefault(v.entity, []).append(v)
    return [
        NodeCount(entity, vs[-1].kind, vs[-1].key, vs[-1].scope, len(vs))
        for entity, vs in sorted(per.items())
    ]


def _text_ids(found: dict[str, NodeVersion], rewrites: Sequence[Rewritten]) -> tuple[str, ...]:
    return tuple(
        r.id for r in rewrites
        if (found[r.id].title, found[r.id].body) != (r.title, r.body)
    )


def redact(
    repo: GraphRepository,
    text: str,
    *,
    scope: ScopeFilter,
    scope_label: str,
    reason: str | None = None,
    actor: Actor | None = None,
    dry_run: bool = False,
    force: bool = False,
    clock: Clock | None = None,
    progress: Progress | None = None,
) -> ForgetReport:
    """Replace every occurrence of ``text`` with ``[redacted]`` in every version and edge in
    ``scope`` (see ``domain.redaction``), record it, and scrub the store's files.

    Refused (InvalidInput, nothing written): a bad ``text`` (see
    :func:`~ryvem.domain.redaction.check_redaction_text`), or ``text`` in a kind, key or
    scope, which a redaction cannot change (the message names those nodes: purge them).
    ``dry_run`` counts what would change and changes nothing (no audit entry either).
    When no version nor edge in ``scope`` holds ``text`` nothing is written either — no audit
    entry — and the report counts 0 with no entry (see :attr:`ForgetReport.found_nothing`): a
    text already gone is not an error. A cleanup an earlier redaction or purge could not
    finish (:class:`CleanupIncomplete`, ``Forgets.cleanup_pending``) is finished either way,
    so running the command again completes it.

    ``text`` in the ``reason`` is redacted too: the audit trail is kept forever, and an agent
    explaining itself pastes the very token ("remove ghp_… leaked"). A redaction of one scope
    or shape counts what other scopes still hold (:attr:`ForgetReport.elsewhere`).
    """
    text = check_redaction_text(text, force=force)
    reason = validate_reason(reason)
    if reason is not None:
        reason = redact_text(reason, text)[0]
    actor = actor or Actor.os_user()
    clock = clock or Clock()
    store = _forgets(repo)

    def run(tx: ForgetTx, dry_run: bool = dry_run) -> ForgetReport:
        found = tx.versions_containing(text, scope)
        stuck = {}
        for v, _ in found:
            part = skeleton_part(v, text)
            if part is not None:  # by id: the key would repeat TEXT
                stuck[v.entity] = f"{v.kind} {v.entity} (its {part})"
        if stuck:
            names = sorted(set(stuck.values()))
            shown = ", ".join(names[:_MAX_NAMED])
            more = f" and {len(names) - _MAX_NAMED} more" if len(names) > _MAX_NAMED else ""
            raise InvalidInput(
                f"the text is part of the kind, key or scope of {len(names)} node(s), which "
                f"redact cannot change: {shown}{more}; purge those nodes (ryvem graph purge "
                "ID) or write their content under another key; nothing was redacted"
            )
        by_id = {v.id: v for v, _ in found}
        rewrites = [r for r in (redact_version(v, t, text) for v, t in found) if r is not None]
        edges: list[tuple[str, dict[str, Any]]] = []
        for e in tx.edges_containing(text, scope):
            data, n = redact_edge_data(e, text)
            if n:
                edges.append((e.id, data))
        nodes = _count([v for v, _ in found], {r.id for r in rewrites})
        changed = _text_ids(by_id, rewrites)
        if dry_run or (not rewrites and not edges):  # a dry run, or nothing holds the text
            return ForgetReport("redact", dry_run, scope_label, len(rewrites), len(edges), nodes,
                                None, changed)
        at = clock.now()
        entry = AuditEntry(
            id=new_id(at), at=at, who=actor.who, via=actor.via, action="redact",
            reason=reason, scope=scope_label, node=None, versions=len(rewrites),
            edges=len(edges),
        )
        tx.record_audit(entry)
        tx.rewrite_versions(rewrites)
        tx.rewrite_edges(edges)
        text_changed(tx, changed)
        return ForgetReport("redact", False, scope_label, len(rewrites), len(edges), nodes,
                            entry, changed)

    try:
        report = store.forget(run, dry_run=dry_run)
    except StoreReadOnly:
        # A store that cannot be written can still tell that nothing holds the text: then a
        # redaction writes nothing, and it answers as it does on a writable store.
        if dry_run:
            raise
        looked = store.forget(lambda tx: run(tx, True), dry_run=True)
        if not looked.found_nothing:
            raise
        return replace(looked, dry_run=False, elsewhere=_elsewhere(store, text, scope))
    finished = False
    if not dry_run and (not report.found_nothing or store.cleanup_pending()):
        _clean(store, progress, report)  # found nothing: an earlier run's, not finished
        finished = report.found_nothing
    return replace(report, elsewhere=_elsewhere(store, text, scope), finished_cleanup=finished)


def _elsewhere(store: Forgets, text: str, scope: ScopeFilter) -> int | None:
    """Versions and edges outside ``scope`` whose content holds ``text`` (None: ``scope``
    is every scope)."""
    if scope.is_all:
        return None

    def count(tx: ForgetTx) -> int:
        inside = {e.id for e in tx.edges_containing(text, scope)}
        versions = sum(
            1 for v, t in tx.versions_containing(text, ALL_SCOPES)
            if not scope.matches(v.scope) and redact_version(v, t, text) is not None
        )
        edges = sum(
            1 for e in tx.edges_containing(text, ALL_SCOPES)
            if e.id not in inside and redact_edge_data(e, text)[1]
        )
        return versions + edges

    return store.forget(count, dry_run=True)


def _clean(store: Forgets, progress: Progress | None, report: ForgetReport) -> None:
    """Scrub the store's files after a committed rewrite, or finish a cleanup an earlier run
    left pending. A failure there (a disk filling up during VACUUM, a file made read-only, a
    busy log) must not read as "nothing was written": the rewrite and its audit entry are
    committed, so the error says what was done, what did not finish and why, and that the
    cleanup stays pending until the same command runs again."""
    try:
        store.scrub(progress)
    except RyvemError as e:
        action = "redaction" if report.action == "redact" else "purge"
        if report.found_nothing:
            held = ("nothing holds the text any more" if report.action == "redact"
                    else "the node was purged already")
            what = (f"{held}; the cleanup an earlier redaction or purge left pending was "
                    "tried again and did not finish")
        else:
            done = "redacted" if report.action == "redact" else "purged"
            entry = f" (audit {report.entry.id})" if report.entry is not None else ""
            what = (f"{done} and audited {report.versions} version(s) and {report.edges} "
                    f"edge(s){entry}; the cleanup did not finish")
        raise CleanupIncomplete(
            f"{what}: {e.message}; until it does, the old text may remain in the store's "
            f"free pages or write-ahead log: the cleanup stays pending, run the same {action} "
            "again once the cause is fixed (it finishes the cleanup even when nothing is left "
            "to rewrite)"
        ) from e


def purge(
    repo: GraphRepository,
    version: NodeVersion,
    *,
    reason: str | None = None,
    actor: Actor | None = None,
    clock: Clock | None = None,
    progress: Progress | None = None,
    dry_run: bool = False,
) -> ForgetReport:
    """Erase the content of every version of ``version``'s node — title ``[purged]``, body,
    data and link targets empty, a retire reason ``[purged]`` — and the data of every edge
    from or to it; the skeleton (ids, kind, key, scope, windows, chain, the edges
    themselves) stays, so history, as-of reads and walks keep their shape. A node purged
    already, whose edges hold no data, is left as it is: no audit entry, nothing scrubbed
    (the report counts 0, :attr:`ForgetReport.found_nothing`). ``dry_run`` counts what
    would be erased and changes nothing (it only reads, so a read-only store answers it)."""
    reason = validate_reason(reason)
    actor = actor or Actor.os_user()
    clock = clock or Clock()
    store = _forgets(repo)
    # By kind and id, never by the key: the audit is never changed, and a key can be the
    # very secret that made someone purge the node (redact refuses a TEXT inside a key).
    name = f"{version.kind} {version.entity}"

    def run(tx: ForgetTx) -> ForgetReport:
        chain = tx.chain(version.entity)
        rewrites = [purge_version(v) for v, targets in chain if not _purged(v, targets)]
        touching: list[Edge] = tx.edges_touching(version.entity)
        edges: list[tuple[str, dict[str, Any]]] = [(e.id, {}) for e in touching if e.data]
        if not edges and not rewrites:
            # Purged already (and no edge written since holds data): an entry now would
            # claim an erasure that did not happen.
            return ForgetReport("purge", dry_run, version.scope, 0, 0, [], None)
        if dry_run:
            nodes = _count([v for v, _ in chain], {r.id for r in rewrites})
            return ForgetReport("purge", True, version.scope, len(rewrites), len(edges), nodes,
                                None, _text_ids({v.id: v for v, _ in chain}, rewrites))
        at = clock.now()
        entry = AuditEntry(
            id=new_id(at), at=at, who=actor.who, via=actor.via, action="purge",
            reason=reason, scope=version.scope, node=name, versions=len(rewrites),
            edges=len(edges),
        )
        tx.record_audit(entry)
        tx.rewrite_versions(rewrites)
        tx.rewrite_edges(edges)
        changed = _text_ids({v.id: v for v, _ in chain}, rewrites)
        text_changed(tx, changed)
        nodes = _count([v for v, _ in chain], {r.id for r in rewrites})
        return ForgetReport("purge", False, version.scope, len(rewrites), len(edges), nodes,
                            entry, changed)

    report = store.forget(run, dry_run=dry_run)
    if dry_run:
        return report
    if not report.found_nothing or store.cleanup_pending():
        _clean(store, progress, report)  # purged already: an earlier run's, not finished
        return replace(report, finished_cleanup=report.found_nothing)
    return report


def _purged(v: NodeVersion, targets: tuple[str, ...]) -> bool:
    """Whether a version holds nothing a purge would erase."""
    p = purge_version(v)
    return (v.erased == "purged" and (v.title, v.body, v.data, v.retired_reason, targets)
            == (p.title, p.body, p.data, p.retired_reason, p.targets))


def audit(repo: GraphRepository) -> list[AuditEntry]:
    """Every redaction and purge, newest first."""
    return _forgets(repo).audit()


def export_folder(data_dir: Path, chosen: str | Path | None = None) -> Path:
    """Where the MCP server's ``graph_export`` writes: ``chosen`` (``ryvem-mcp
    --export-dir``), else $RYVEM_EXPORT_DIR, else ``data_dir/exports``; absolute."""
    if chosen is None or str(chosen) == "":
        chosen = export_dir_from_env() or data_dir / "exports"
    return Path(chosen).expanduser().absolute()


def export_folders(data_dir: Path, chosen: str | Path | None = None) -> list[Path]:
    """The folders ryvem writes pages into by itself: the data dir (``graph export``'s
    default ``graph.html``) and the MCP server's export folder (:func:`export_folder`)."""
    return list(dict.fromkeys([data_dir.expanduser().absolute(),
                               export_folder(data_dir, chosen)]))


def stale_exports(folders: Iterable[Path], holds: Callable[[bytes], bool]) -> list[Path]:
    """The pages ryvem exported into ``folders`` (its own: ``graph.html`` in the data dir and
    the MCP export folder; never a path a user chose) whose bytes ``holds`` says still hold
    what a forgetting removed: a redacted text in any form (``ryvem.export.page_holds_text``),
    or a purged node's versions (``ryvem.export.still_holds``). Only read."""
    found: list[Path] = []
    for folder in folders:
        try:
            pages = sorted(folder.glob("*.html")) if folder.is_dir() else []
        except OSError:
            continue
        for page in pages:
            try:
                if page.is_symlink() or not page.is_file():
                    continue
                data = page.read_bytes()
            except OSError:
                continue
            if is_own_page(data) and holds(data):
                found.append(page)
    return found
