"""Keeping a vault's pages in sync while it is edited: ``ryvem graph import DIR --watch``.

:class:`VaultSync` applies a set of changed paths to the store; :func:`watch_vault` feeds it
the changes a file-watching library (``watchfiles``, inotify/FSEvents/kqueue underneath)
reports, debounced, until a stop event is set. Each change is judged by what is on disk when
it is applied, not by the event's type, which makes it atomic-save aware: an editor that
writes ``.page.md.tmp`` and renames it over ``page.md`` produces events for both paths, the
temporary file is gone by then and only ``page.md`` is written. The rules are the import's
(:mod:`ryvem.application.vault`): a file whose title, body and data did not change writes
nothing; a file that cannot be read is a warning and the watch goes on.

* **Renames**: a page that disappeared and a page that appeared in the same batch with the
  same body and data are one page moved: its node continues under the new key (one history;
  :meth:`Service.prepare`'s ``renamed_from``). A folder renamed or deleted stands for every
  page below it.
* **Deletes** retire the page only with ``retire_missing`` (as the import does).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ryvem.application.service import NewNode, Service
from ryvem.application.vault import (
    ImportSummary,
    Problem,
    import_vault,
    page_key,
    prepare_page,
    scan,
    title_rule,
)
from ryvem.application.vault_history import GIT_KEY
from ryvem.domain.model import NodeVersion
from ryvem.domain.validation import validate_kind

__all__ = ["Applied", "VaultSync", "WatchSummary", "watch_vault"]

DEBOUNCE_MS = 300  # at most this long grouping a burst of events into one batch
STEP_MS = 50  # a batch is applied once no new event came for this long
READY_MS = 200  # the first (empty) yield after the watcher is set up, then every this long


@dataclass
class Applied:
    """What one batch of changes did: the refs written, renamed and retired, and problems."""

    written: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    unchanged: int = 0
    problems: list[Problem] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.written or self.renamed or self.retired or self.problems)

    def record(self) -> dict[str, Any]:
        return {
            "type": "watch-batch",
            "written": self.written,
            "renamed": [{"from": a, "to": b} for a, b in self.renamed],
            "retired": self.retired,
            "unchanged": self.unchanged,
            "problems": [{"path": p.path, "message": p.message} for p in self.problems],
        }


@dataclass
class WatchSummary:
    """What a whole watch did, from its start to its stop."""

    root: str
    scope: str
    kind: str
    batches: int = 0
    written: int = 0
    renamed: int = 0
    retired: int = 0
    warnings: int = 0
    started: float = field(default_factory=time.monotonic)

    def add(self, applied: Applied) -> None:
        self.batches += 1
        self.written += len(applied.written)
        self.renamed += len(applied.renamed)
        self.retired += len(applied.retired)
        self.warnings += len(applied.problems)

    def line(self) -> str:
        took = time.monotonic() - self.started
        return (
            f"stopped watching {self.root} after {took:.1f} s: {self.written} written, "
            f"{self.renamed} renamed, {self.retired} retired, {self.warnings} warnings"
        )

    def record(self) -> dict[str, Any]:
        return {
            "type": "watch",
            "root": self.root,
            "scope": self.scope,
            "kind": self.kind,
            "batches": self.batches,
            "written": self.written,
            "renamed": self.renamed,
            "retired": self.retired,
            "warnings": self.warnings,
        }


class VaultSync:
    """The pages of one vault, kept in sync with its files one batch of changes at a time."""

    def __init__(
        self,
        service: Service,
        root: str | Path,
        *,
        scope: str | None = None,
        kind: str = "page",
        retire_missing: bool = False,
        title_from: str = "name",
    ) -> None:
        self.service = service
        self.title_from = title_rule(title_from)
        self.root = Path(root).expanduser()
        self.kind = validate_kind(kind)
        self.scope = service.scope(scope)
        self.retire_missing = retire_missing
        self.known: set[str] = set()  # the keys of the vault's files, as last seen
        # Watchers report paths below the root as given (a symlinked vault, ~/notes ->
        # ~/Dropbox/notes) or resolved: both are the vault.
        self._bases = _bases(self.root)

    def start(self, *, initial_import: bool = True) -> ImportSummary | None:
        """Import the whole vault once (unless told not to) and remember its files."""
        summary = None
        if initial_import:
            summary = import_vault(
                self.service, self.root, scope=self.scope, kind=self.kind,
                retire_missing=self.retire_missing, title_from=self.title_from,
            )
        self.known = {key for key, _ in scan(self.root)}
        return summary

    # --- one batch ---------------------------------------------------------------------------
    def _key_of(self, path: str) -> tuple[str, bool] | None:
        """(path relative to the vault, ``.md`` removed from a page's, and is a page) of a
        changed path inside the vault, else None. The path is as named on disk: its key is
        :func:`page_key` of it."""
        rel = _inside(path, self._bases)
        if rel is None:
            return None
        parts = rel.split(os.sep)
        if rel == "." or parts[0] == ".." or any(p.startswith(".") for p in parts):
            return None
        rel = "/".join(parts)
        if rel.endswith(".md") and len(parts[-1]) > 3:
            return rel[:-3], True
        return rel, False

    def _candidates(self, paths: Iterable[str]) -> dict[str, Path]:
        """The keys a batch of changed paths may concern (folders stand for their pages),
        each with the file it would be read from."""
        keys: dict[str, Path] = {}
        for path in paths:
            found = self._key_of(path)
            if found is None:
                continue
            name, is_page = found
            if is_page:
                keys.setdefault(page_key(name), Path(self.root, name + ".md"))
                continue
            full = Path(self.root, name)
            if full.is_dir() and not full.is_symlink():
                for key, file in scan(full):
                    keys.setdefault(page_key(name + "/" + key), file)
            prefix = page_key(name + "/")
            for k in self.known:
                if k.startswith(prefix):
                    keys.setdefault(k, Path(self.root, k + ".md"))
        return keys

    def _current(self, key: str) -> NodeVersion | None:
        return self.service.repo.get_identity((self.kind, key, self.scope), None)

    def _same(self, node: NewNode) -> bool:
        v = None if node.key is None else self._current(node.key)
        return v is not None and (v.title, v.body, _content(v.data)) == (
            node.title, node.body, _content(node.data)
        )

    def apply(self, paths: Iterable[str]) -> Applied:
        """Bring the pages of these changed paths in line with the files on disk now."""
        applied = Applied()
        present: list[str] = []
        gone: list[str] = []
        files = self._candidates(paths)
        for key in sorted(files):
            path = files[key]
            (present if path.is_file() or path.is_symlink() else gone).append(key)
        tally = ImportSummary(root=str(self.root), scope=self.scope, kind=self.kind)
        nodes: list[NewNode] = []
        for key in present:
            node = prepare_page(self.service, tally, key, files[key],
                                self.kind, self.scope, self.root, title_from=self.title_from)
            if node is not None:
                nodes.append(node)
        applied.problems.extend(tally.problems)
        # A page whose file holds what its current version says (its git provenance aside,
        # after --git-history) is unchanged: touching a file writes nothing.
        kept = [n for n in nodes if not self._same(n)]
        applied.unchanged += len(nodes) - len(kept)
        nodes = kept
        # A page that vanished and one that appeared with the same body and data moved.
        leaving = {key: v for key in gone if (v := self._current(key)) is not None}
        for i, node in enumerate(nodes):
            if not leaving or node.key is None or self._current(node.key) is not None:
                continue
            for old, version in sorted(leaving.items()):
                if (version.body, _content(version.data)) == (node.body, _content(node.data)):
                    nodes[i] = self.service.prepare(
                        node.kind, node.title, key=node.key, scope=node.scope, body=node.body,
                        data=node.data, renamed_from=old,
                    )
                    del leaving[old]
                    break
        for result in self.service.write_many(nodes):
            v = result.version
            ref = f"{v.kind}/{v.key}"
            if result.outcome == "unchanged":
                applied.unchanged += 1
            elif result.outcome == "renamed":
                node = next(n for n in nodes if n.key == v.key)
                applied.renamed.append((f"{v.kind}/{node.renamed_from}", ref))
            else:
                applied.written.append(ref)
        if self.retire_missing:
            for key, version in sorted(leaving.items()):
                current = self._current(key)
                if current is None or current.id != version.id:
                    continue
                self.service.retire(version.id, reason="its file is no longer in the vault")
                applied.retired.append(f"{version.kind}/{key}")
        self.known.difference_update(gone)
        self.known.update(present)
        return applied


def _content(data: dict[str, Any]) -> dict[str, Any]:
    """A page's data without the provenance a git history import adds."""
    return {k: v for k, v in data.items() if k != GIT_KEY}


def _bases(root: Path) -> tuple[str, ...]:
    """The vault's folder as given (absolute) and resolved (the same when no symlink)."""
    return tuple(dict.fromkeys((os.path.abspath(root), str(root.resolve()))))


def _inside(path: str, bases: tuple[str, ...]) -> str | None:
    """``path`` relative to the first of ``bases`` it lies in (``.`` for a base), else None."""
    full = os.path.abspath(path)
    for base in bases:
        try:
            rel = os.path.relpath(full, base)
        except ValueError:
            continue
        if rel != ".." and not rel.startswith(".." + os.sep):
            return rel
    return None


def _outside_dot_folders(root: Path) -> Callable[[Any, str], bool]:
    """A watchfiles filter: every path in the vault except those inside dot-folders."""
    bases = _bases(root)

    def keep(_change: Any, path: str) -> bool:
        rel = _inside(path, bases)
        if rel is None:
            return False
        return not any(p.startswith(".") for p in rel.split(os.sep)[:-1])

    return keep


def watch_vault(
    sync: VaultSync,
    stop: threading.Event,
    on_batch: Callable[[Applied], None],
    *,
    on_ready: Callable[[], None] | None = None,
    on_error: Callable[[str], None] | None = None,
) -> None:
    """Apply every batch of file changes below ``sync.root`` until ``stop`` is set.

    ``on_ready`` is called once the watcher is listening. A batch that fails (a store error)
    is reported to ``on_error`` and the watch goes on; a stop waits for the batch in hand.
    """
    from watchfiles import watch

    ready = on_ready
    for changes in watch(
        sync.root,
        watch_filter=_outside_dot_folders(sync.root),
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        stop_event=stop,
        rust_timeout=READY_MS,
        yield_on_timeout=True,
        raise_interrupt=False,
    ):
        if ready is not None:
            ready()
            ready = None
        if not changes or stop.is_set():
            continue
        try:
            applied = sync.apply(path for _, path in changes)
        except Exception as e:  # a store that failed this batch: say so and keep watching
            if on_error is None:
                raise
            message = getattr(e, "message", None) or f"{type(e).__name__}: {e}"
            on_error(f"could not apply {len(changes)} changes: {message}")
            continue
        if not applied.empty or applied.unchanged:
            on_batch(applied)
