"""Importing a vault's git history: ``ryvem graph import DIR --git-history``.

Every commit on HEAD's first-parent line that touched a page (a ``*.md`` file below DIR,
outside dot-folders; a commit touching only other files is not one) becomes a version of
that page valid from the commit's time (its committer date), oldest first, with the links in
it; the version's data is the page's front matter plus ``"git": {"commit", "author",
"email", "authored", "committed", "message"}``. A commit that deletes a page retires it at
that time; a rename git reports (``-M``) keeps one node, whose history then spans both keys.
Commits already imported are skipped: the newest commit any version of the scope's pages
names is where the next run starts, so running it again adds only commits made since. Last,
the working tree is imported as now: a page whose current version is not the one the last
commit touching its file wrote (its file edited, untracked or ignored; an earlier run's
draft since thrown away; a page retired while its file was gone, now back) is written from
its file with the import's usual rules (:mod:`ryvem.application.vault`) at the present time,
and with ``retire_missing`` a page whose file is gone is retired now. So after a run the
graph's now is the folder's, whatever HEAD holds.

Valid times only move forward, along the first-parent line and for each page: a commit dated
before its parent (clock skew, a rebased date) is placed a microsecond after the commit
before it, and after the page's latest version; the real date stays in the version's ``git``
data. So the graph as of a commit's placed time reads as ``git show <commit>:<path>``.
The git part (running ``git``, parsing its output) is
:mod:`ryvem.gitlog`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ryvem.application.service import NewNode, Service, WriteResult
from ryvem.application.vault import (
    BATCH_SIZE,
    MAX_PAGE_FILE_BYTES,
    ImportSummary,
    Problem,
    bad_name,
    count_links,
    page_key,
    parse_page,
    prepare_page,
    retire_gone,
    scan_vault,
    title_rule,
    too_large,
    vault_folder,
)
from ryvem.domain.model import NodeVersion
from ryvem.domain.validation import validate_kind
from ryvem.errors import InvalidInput
from ryvem.gitlog import Change, Commit, GitFolder, git_blob_id
from ryvem.safefile import TooLarge

__all__ = ["GIT_KEY", "import_history"]

GIT_KEY = "git"  # the data field that carries a version's commit
DELETED_IN = "deleted in commit"  # a retire reason: the full commit id follows
_DELETED = re.compile(r"^deleted in commit ([0-9a-f]{40,64})$")
Progress = Callable[[int, int], None]
"""Called with (commits done, commits to import) after each commit."""


def _write_at(service: Service, nodes: Sequence[NewNode], at: int) -> list[WriteResult]:
    """Write these nodes valid from ``at`` (recorded now, by ryvem's own clock)."""
    return service.write_many([dataclasses.replace(n, valid_from=at) for n in nodes])


def _retire_at(service: Service, version: NodeVersion, reason: str, at: int) -> None:
    """Retire a current version as of ``at`` (a microsecond past its start at the earliest)."""
    service.retire(version.id, reason=reason, valid_to=at)


def _page_key(path: str | None) -> str | None:
    """A page's key for a vault-relative path: ``*.md`` outside dot-folders, else None."""
    if path is None or not path.endswith(".md") or len(path.rsplit("/", 1)[-1]) <= 3:
        return None
    if any(part.startswith(".") for part in path.split("/")):
        return None
    return page_key(path[:-3])


@dataclass
class _Store:
    """What the store holds for the scope's pages: commits already imported, the latest
    valid time of each key (times only move forward), and its current versions.

    Valid time is signed (a commit before 1970 is a negative instant), so a time not known
    is absent or None, never 0."""

    commits: set[str]
    latest: dict[str, int]
    placed: dict[str, int]  # a commit -> the valid time its versions and retires were given
    last: int | None = None  # the time the previous commit on the line was placed at
    moved_forward: int = 0  # commits dated before their parent or their pages' versions


def _raise_to(times: dict[str, int], name: str, at: int) -> None:
    """Keep the later of ``times[name]`` (if any) and ``at``."""
    times[name] = at if name not in times else max(times[name], at)


def _read_store(service: Service, kind: str, scope: str) -> _Store:
    commits: set[str] = set()
    latest: dict[str, int] = {}
    placed: dict[str, int] = {}
    for batch in service.iter_graph():
        for v, _ in batch:
            if v.kind != kind or v.scope != scope or v.key is None:
                continue
            git = v.data.get(GIT_KEY)
            if isinstance(git, dict) and isinstance(git.get("commit"), str):
                commits.add(git["commit"])
                _raise_to(placed, git["commit"], v.valid_from)
            if v.retired_reason is not None and (m := _DELETED.match(v.retired_reason)):
                commits.add(m.group(1))
                _raise_to(placed, m.group(1), v.latest_valid)
            _raise_to(latest, v.key, v.latest_valid)
    return _Store(commits, latest, placed)


def _git_commit(version: NodeVersion | None) -> str | None:
    """The commit a version was written from (None: not from the history)."""
    git = None if version is None else version.data.get(GIT_KEY)
    commit = git.get("commit") if isinstance(git, dict) else None
    return commit if isinstance(commit, str) else None


def _last_writes(log: Sequence[Commit]) -> dict[str, str]:
    """Each page key the line ends with -> the last commit that wrote it."""
    last: dict[str, str] = {}
    for commit in log:
        writes, deletes = _changes(commit)
        for _, old in writes.values():
            if old is not None and old not in writes:
                last.pop(old, None)
        for key in deletes:
            if key not in writes:
                last.pop(key, None)
        last.update((key, commit.id) for key in writes)
    return last


def _provenance(commit: Commit) -> dict[str, Any]:
    return {
        "commit": commit.id,
        "author": commit.author,
        "email": commit.email,
        "authored": commit.authored,
        "committed": commit.committed,
        "message": commit.message,
    }


def import_history(
    service: Service,
    root: str | Path,
    *,
    scope: str | None = None,
    kind: str = "page",
    retire_missing: bool = False,
    progress: Progress | None = None,
    git: str | None = None,
    title_from: str = "name",
) -> ImportSummary:
    """Import the vault's git history, then its working tree (see the module docstring);
    titles follow ``title_from`` as in :func:`~ryvem.application.vault.import_vault`."""
    kind = validate_kind(kind)
    title_from = title_rule(title_from)
    sc = service.scope(scope)
    base = vault_folder(root)
    folder = GitFolder(base, git=git)
    summary = ImportSummary(root=str(base), scope=sc, kind=kind)
    summary.commits = 0
    if folder.is_shallow():
        summary.problems.append(Problem(
            ".", "the repository is a shallow clone: history before its oldest commit is "
            "not there to import",
        ))
    # Only commits that touch a page: one that changes only other files (an image, a
    # script) writes no version, so no later run could see it was imported, and every
    # re-import counted it again.
    log = [c for c in folder.log() if any(_changes(c))]
    store = _read_store(service, kind, sc)
    seen = [i for i, c in enumerate(log) if c.id in store.commits]
    todo = log[seen[-1] + 1 :] if seen else log
    if seen:  # the line goes on after the newest commit imported
        store.last = store.placed.get(log[seen[-1]].id)
    summary.commits_known = len(log) - len(todo)
    if progress is not None:
        progress(0, len(todo))
    if seen:  # the newest imported commit's deletes, in case a stop cut in before them
        position = {c.id: i for i, c in enumerate(log)}
        _finish_deletes(service, log[seen[-1]], position, kind, sc)
    with folder.blob_reader(limit=MAX_PAGE_FILE_BYTES) as read_blob:
        for n, commit in enumerate(todo, 1):
            _apply_commit(service, summary, store, commit, read_blob, kind, sc,
                          title_from)
            summary.commits += 1
            if progress is not None:
                progress(n, len(todo))
    if store.moved_forward:
        summary.problems.append(Problem(".", (
            f"{store.moved_forward} commits are dated before versions their pages already had "
            "in this scope (an import without --git-history, a commit dated before its "
            "parent, a rebased date): their versions "
            "start after those instead; their git data keeps the commit dates"
        )))
    # Links as the plain import counts them: of every page the vault holds now, not only of
    # those this run wrote (a run that changed nothing said "0 resolved").
    count_links(service, summary, _import_working_tree(
        service, summary, folder, base, kind, sc, retire_missing, title_from, _last_writes(log)
    ))
    return summary


def _changes(commit: Commit) -> tuple[dict[str, tuple[Change, str | None]], list[str]]:
    """A commit's pages: key -> (change, the key it was renamed from) written, keys deleted."""
    writes: dict[str, tuple[Change, str | None]] = {}
    deletes: list[str] = []
    for change in commit.changes:
        key = _page_key(change.path) if change.status != "D" else None
        old = _page_key(change.old_path) if change.status == "R" else None
        if change.status == "D":
            if (gone := _page_key(change.path)) is not None:
                deletes.append(gone)
            continue
        if change.status == "R" and old is not None and (key is None or change.blob is None):
            deletes.append(old)  # renamed out of the vault's pages
            continue
        if key is None:
            continue
        if change.blob is None:  # a page that became a symlink or a submodule
            deletes.append(key)
            continue
        writes[key] = (change, old)
    # A key both renamed from and written again in one commit keeps its own history.
    for key, (change, old) in list(writes.items()):
        if old is not None and old in writes:
            writes[key] = (change, None)
    return writes, deletes


def _finish_deletes(
    service: Service, commit: Commit, position: dict[str, int], kind: str, scope: str
) -> None:
    """Retire what the last imported commit deleted, if a stop cut in before its retires.

    A page is retired only when its current version comes from an earlier commit: one
    written later (the working tree, as now) is not the page the commit deleted.
    """
    writes, deletes = _changes(commit)
    here = position[commit.id]
    for key in sorted(set(deletes) - set(writes)):
        current = service.repo.get_identity((kind, key, scope), None)
        git = None if current is None else current.data.get(GIT_KEY)
        source = git.get("commit") if isinstance(git, dict) else None
        if current is not None and isinstance(source, str) and position.get(source, here) < here:
            when = max(min(commit.time * 1_000_000, service.clock.now()), current.valid_from + 1)
            _retire_at(service, current, f"{DELETED_IN} {commit.id}", when)


def _apply_commit(
    service: Service,
    summary: ImportSummary,
    store: _Store,
    commit: Commit,
    read_blob: Callable[[str], bytes],
    kind: str,
    scope: str,
    title_from: str,
) -> None:
    """One commit: its pages' new versions in one transaction, then its deletes."""
    writes, deletes = _changes(commit)
    renamed_from = {old for _, old in writes.values() if old is not None}
    # A commit dated in the future (a skewed clock) is placed now: ryvem records what was
    # true up to now.
    at = min(commit.time * 1_000_000, service.clock.now())
    before = [store.last, *(store.latest.get(k) for k in [*writes, *renamed_from])]
    floor = max([at - 1, *(t for t in before if t is not None)])
    if floor >= at + 1_000_000:
        store.moved_forward += 1
    at = max(at, floor + 1)
    store.last = at
    nodes: list[NewNode] = []
    for key, (change, old) in sorted(writes.items()):
        shown = key + ".md"
        assert change.blob is not None
        in_commit = f"in commit {commit.id[:12]}; skipped"
        if (bad := bad_name(key)) is not None:
            summary.skip(shown, f"{bad} {in_commit}")
            continue
        try:
            text = read_blob(change.blob).decode("utf-8")
        except UnicodeDecodeError as e:
            summary.skip(shown, f"not valid UTF-8 (byte {e.start}) {in_commit}")
            continue
        except TooLarge as e:
            summary.skip(shown, f"{too_large(e)} {in_commit}")
            continue
        page = parse_page(key, text, title_from)
        if page.warning is not None:
            summary.problems.append(Problem(shown, f"{page.warning} (commit {commit.id[:12]})"))
        if old is not None:
            target = service.repo.get_identity((kind, key, scope), None)
            if target is not None:  # the new key is current already: two pages, not a move
                deletes.append(old)
                old = None
        try:
            nodes.append(service.prepare(
                kind, page.title, key=key, scope=scope, body=page.body,
                data={**page.data, GIT_KEY: _provenance(commit)}, renamed_from=old,
            ))
        except InvalidInput as e:
            summary.skip(shown, f"{e.message} (commit {commit.id[:12]}); skipped")
    results = summary.wrote(_write_at(service, nodes, at) if nodes else [])
    for node, result in zip(nodes, results, strict=True):
        v = result.version
        if v.key is not None:
            _raise_to(store.latest, v.key, v.valid_from)
        if result.outcome == "renamed" and node.renamed_from is not None:
            # The old key's node left it then: a page written there later starts after that.
            old_key = node.renamed_from
            _raise_to(store.latest, old_key, v.valid_from)
    moved = {n.renamed_from for n in nodes if n.renamed_from is not None}
    for key in sorted(set(deletes) - moved - set(writes)):
        current = service.repo.get_identity((kind, key, scope), None)
        if current is None:
            continue
        when = max(at, current.valid_from + 1)
        _retire_at(service, current, f"{DELETED_IN} {commit.id}", when)
        store.latest[key] = when
        summary.retired += 1


def _as_committed(node: NewNode, committed: NodeVersion) -> bool:
    """Whether a page read from its file says what the commit's version says (its file
    differs from HEAD's blob only in bytes the page does not keep: a checkout's line endings
    under ``eol=crlf``, a smudge filter), so writing it would add a copy without its commit."""
    data = {k: v for k, v in committed.data.items() if k != GIT_KEY}
    return (node.title, node.body, node.data) == (committed.title, committed.body, data)


def _import_working_tree(
    service: Service,
    summary: ImportSummary,
    folder: GitFolder,
    base: Path,
    kind: str,
    scope: str,
    retire_missing: bool,
    title_from: str,
    last_writes: dict[str, str],
) -> list[NodeVersion]:
    """Pages whose current version is not their file's at HEAD (as the last commit writing
    it left it), or whose file differs from HEAD, are written now; gone ones retire if asked.
    The current versions of the pages the working tree holds (one scan serves both)."""
    head = {page_key(path): blob for path, blob in folder.head_blobs().items()}
    current = {v.key: v for batch in service.iter_graph() for v, _ in batch
               if v.is_current and v.kind == kind and v.scope == scope and v.key is not None}
    found = scan_vault(base, base)
    found.tally(summary)
    files = found.files
    changed: list[tuple[str, Path]] = []
    at_head: set[str] = set()
    for key, path in files:
        blob = head.get(key + ".md")
        if key in last_writes and _git_commit(current.get(key)) == last_writes[key]:
            at_head.add(key)
        if blob is not None and key in at_head and not path.is_symlink():
            try:  # a file over the page limit is not read here: prepare_page reports it
                same = path.stat().st_size <= MAX_PAGE_FILE_BYTES and git_blob_id(
                    path.read_bytes(), folder.object_format) == blob
            except OSError:
                same = False  # prepare_page reports it
            if same:
                continue
        changed.append((key, path))
    for start in range(0, len(changed), BATCH_SIZE):
        nodes = [
            node for key, path in changed[start : start + BATCH_SIZE]
            if (node := prepare_page(service, summary, key, path, kind, scope, base,
                                     title_from=title_from)) is not None
            and not (key in at_head and _as_committed(node, current[key]))
        ]
        for result in summary.wrote(service.write_many(nodes)):
            if result.version.key is not None:
                current[result.version.key] = result.version
            if result.outcome != "unchanged":
                summary.working_tree += 1
    pages = list(current.values())
    if retire_missing:
        retire_gone(service, summary, pages, found)
    return [v for v in pages if v.key in found.present]
