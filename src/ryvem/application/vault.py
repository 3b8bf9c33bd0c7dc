"""Importing a markdown vault: every ``*.md`` file below a folder becomes a page node.

The vault is only read, never written: files are opened read-only and nothing is created
beside them. For each file below DIR (dot-folders such as ``.git`` and ``.obsidian`` and
dot-files such as ``._x.md`` are skipped, symlinked folders are not followed, symlinked
files are read only when they point to a regular file inside the vault):

* key = its path relative to DIR without ``.md``, with ``/`` separators, in Unicode NFC
  (:func:`page_key`: macOS writes file names decomposed, NFD; a key is typed composed);
* title = the front matter's ``title``, else the file name (its last path part without
  ``.md``: a wiki vault names its pages by their files, and links resolve by them); with
  ``title_from="heading"``, the front matter's ``title``, else the first ``# `` heading,
  else the file name (:func:`parse_page` is the one place titles are derived);
* body = the markdown without its front matter;
* data = the front matter (YAML, ``yaml.safe_load``) as a JSON object; YAML values JSON has
  no form for become strings (dates and times in ISO 8601). Front matter that is not valid
  YAML, or not a mapping, is reported and kept as body text.

Writes go through :meth:`Service.write_many` in batches (one transaction each), so an
unchanged file makes no version, a changed one supersedes, and a re-run after a failure
finishes the job. A file that cannot be read or is not UTF-8 is reported and skipped.
With ``retire_missing``, current nodes of the kind in the scope whose file is gone are
retired.

Valid time: ``valid_from`` dates every page version the import writes (and ``retire_missing``'s
retirements) at that time instead of now — e.g. a commit's time when replaying a vault's git
history — under the service's append-only rule (never before a page's latest valid time).
:func:`import_texts` writes pages from text held in memory (a commit's blobs) the same way.
"""

from __future__ import annotations

import base64
import datetime as dt
import math
import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ryvem.application.service import NewNode, Service, WriteResult
from ryvem.domain.model import NodeVersion
from ryvem.domain.validation import (
    MAX_BODY_BYTES,
    MAX_DATA_BYTES,
    MAX_TITLE_CHARS,
    one_line,
    validate_kind,
)
from ryvem.errors import InvalidInput, NotFound
from ryvem.safefile import OutsideRoot, TooLarge, read_inside

__all__ = [
    "BATCH_SIZE",
    "MAX_PAGE_FILE_BYTES",
    "TITLE_FROM",
    "ImportSummary",
    "Problem",
    "count_links",
    "import_texts",
    "import_vault",
    "page_key",
    "page_node",
    "parse_page",
    "prepare_page",
    "scan",
    "title_rule",
]

BATCH_SIZE = 500
MAX_UNRESOLVED_SHOWN = 10
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_H1 = re.compile(r"^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_MAX_YAML_NODES = 100_000
MAX_PAGE_FILE_BYTES = MAX_BODY_BYTES + MAX_DATA_BYTES
"""A larger page file is skipped unread (at most this plus one byte is read): a page's body
holds at most 8 MiB and its front matter (data) 1 MiB."""
# libyaml's safe loader when present (same rules as yaml.safe_load, about 10x faster).
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

TITLE_FROM = ("name", "heading")
"""Where a page's title comes from when its front matter has none: ``name``, the file name
(the default); ``heading``, the first ``# `` heading, else the file name."""

Progress = Callable[[int, int], None]
"""Called with (files done, files in total) after each batch."""


@dataclass(frozen=True, slots=True)
class Problem:
    """A file that was skipped, or imported with a caveat."""

    path: str
    message: str

    def line(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass
class ImportSummary:
    """What an import did."""

    root: str
    scope: str
    kind: str
    files: int = 0
    created: int = 0
    superseded: int = 0
    revived: int = 0
    renamed: int = 0
    unchanged: int = 0
    retired: int = 0
    skipped: int = 0
    links_resolved: int = 0
    links_unresolved: int = 0
    unresolved: list[tuple[str, str]] = field(default_factory=list)  # first (key, target)s
    problems: list[Problem] = field(default_factory=list)
    commits: int | None = None  # --git-history: commits imported by this run
    commits_known: int = 0  # --git-history: commits an earlier run imported
    working_tree: int = 0  # --git-history: pages written from the working tree (as now)

    @property
    def pages(self) -> int:
        return self.created + self.superseded + self.revived + self.renamed + self.unchanged

    def skip(self, path: str, why: str) -> None:
        """A file the import could not write: counted as skipped, the reason kept."""
        self.skipped += 1
        self.problems.append(Problem(path, why))

    def wrote(self, results: Iterable[WriteResult]) -> list[WriteResult]:
        """Count each write by its outcome (created, superseded, ...); the results, as a list."""
        done = list(results)
        for result in done:
            setattr(self, result.outcome, getattr(self, result.outcome) + 1)
        return done

    def record(self) -> dict[str, Any]:
        return {
            "type": "import",
            "root": self.root,
            "scope": self.scope,
            "kind": self.kind,
            "files": self.files,
            "pages": self.pages,
            "created": self.created,
            "superseded": self.superseded,
            "revived": self.revived,
            "unchanged": self.unchanged,
            "retired": self.retired,
            "skipped": self.skipped,
            "links": {"resolved": self.links_resolved, "unresolved": self.links_unresolved},
            "unresolved": [{"page": k, "target": t} for k, t in self.unresolved],
            "problems": [{"path": p.path, "message": p.message} for p in self.problems],
            **({} if self.commits is None else {
                "renamed": self.renamed,
                "git": {
                    "commits": self.commits,
                    "already_imported": self.commits_known,
                    "working_tree": self.working_tree,
                },
            }),
        }


@dataclass(frozen=True, slots=True)
class Page:
    """One parsed file."""

    key: str
    title: str
    body: str
    data: dict[str, Any]
    warning: str | None = None


# --- reading -------------------------------------------------------------------------------


def page_key(rel: str) -> str:
    """A page's key from its path relative to the vault (``/`` separators, ``.md`` removed):
    the path in Unicode NFC, so a name macOS wrote decomposed (NFD) is the key one types."""
    return unicodedata.normalize("NFC", rel)


def scan(
    root: Path,
    problems: list[Problem] | None = None,
    unread: list[str] | None = None,
    duplicates: list[str] | None = None,
) -> Iterator[tuple[str, Path]]:
    """(key, path) of every ``*.md`` file below root, in a stable order; dot-folders and
    dot-files skipped.

    A key is the path in NFC (:func:`page_key`); a second file with the same key (its name in
    another Unicode form) is reported in ``problems``, its path added to ``duplicates``, and
    not yielded.

    Symlinked folders are never entered; each one is reported in ``problems`` (when given).
    A symlinked file is yielded like any other: :func:`_read` decides whether it may be read.
    A folder below root that cannot be listed is reported too, and its key prefix (``a/b/``)
    added to ``unread``: its pages are unknown, not gone. Root itself unreadable raises.
    """

    def cannot_list(e: OSError) -> None:
        rel = os.path.relpath(e.filename, root) if e.filename else "."
        if rel == ".":
            raise e
        prefix = page_key(rel.replace(os.sep, "/") + "/")
        if problems is not None:
            problems.append(Problem(
                prefix, f"cannot read folder: {e.strerror or e}; its pages are skipped"
            ))
        if unread is not None:
            unread.append(prefix)

    first: dict[str, str] = {}  # key -> the path (as named on disk) that has it
    for folder, dirs, files in os.walk(root, onerror=cannot_list, followlinks=False):
        rel = os.path.relpath(folder, root)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        kept = []
        for d in sorted(dirs):
            if d.startswith("."):
                continue
            if os.path.islink(os.path.join(folder, d)):
                if problems is not None:
                    problems.append(Problem(prefix + d, "is a symlinked folder; not followed"))
                continue
            kept.append(d)
        dirs[:] = kept
        for name in sorted(files):
            # Dot-files are no pages, as dot-folders: macOS's AppleDouble ``._x.md``, Emacs's
            # ``.#x.md`` lock links, hidden drafts (git history and watch skip them too).
            if name.endswith(".md") and len(name) > 3 and not name.startswith("."):
                key = page_key(prefix + name[:-3])
                if key in first:
                    if problems is not None:
                        problems.append(Problem(prefix + name, (
                            f"has the name of {first[key]} in another Unicode form "
                            f"(both are page {key}); skipped"
                        )))
                    if duplicates is not None:
                        duplicates.append(prefix + name)
                    continue
                first[key] = prefix + name
                yield key, Path(folder, name)


def _read(path: Path, root: Path | None = None) -> str:
    """The file's text if it is a regular file inside the vault (:func:`read_inside`)."""
    base = root if root is not None else path.parent
    return read_inside(path, base, limit=MAX_PAGE_FILE_BYTES).decode("utf-8")


def _split_front_matter(text: str) -> tuple[str, str] | None:
    """(yaml, body) when text opens with a ``---`` line closed by ``---`` or ``...``."""
    if not text.startswith("---\n"):
        return None
    end = re.search(r"^(?:---|\.\.\.)[ \t]*$", text[4:], re.MULTILINE)
    if end is None:
        return None
    inner = text[4 : 4 + end.start()]
    rest = text[4 + end.end() :]
    return inner, rest[1:] if rest.startswith("\n") else rest


class _TooBig(Exception):
    pass


def _jsonable(value: Any, budget: list[int], depth: int = 0) -> Any:
    """YAML values as JSON values: dates become ISO strings, odd scalars strings."""
    budget[0] -= 1
    if budget[0] < 0 or depth > 32:
        raise _TooBig
    if isinstance(value, dict):
        return {_key(k): _jsonable(v, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v, budget, depth + 1) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((_jsonable(v, budget, depth + 1) for v in value), key=repr)
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return str(value)


def _key(k: Any) -> str:
    if isinstance(k, dt.date | dt.datetime):
        return k.isoformat()
    if k is None:
        return "null"
    if isinstance(k, bool):
        return "true" if k else "false"
    return str(k)


def _scalar_text(front_matter: str, name: str) -> str | None:
    """The text of a top-level scalar as written (``On``, ``0755``), not as YAML 1.1 reads it
    (true, 493): a title is text."""
    try:
        node = yaml.compose(front_matter, Loader=_SafeLoader)
    except yaml.YAMLError:
        return None
    if not isinstance(node, yaml.MappingNode):
        return None
    found = None
    for key, value in node.value:  # the last one, as the loader keeps the last
        if isinstance(key, yaml.ScalarNode) and key.value == name:
            found = value.value if isinstance(value, yaml.ScalarNode) else None
    return found


def _first_heading(body: str) -> str | None:
    fence: str | None = None
    for line in body.split("\n"):
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark[0] * len(mark)
            elif mark[0] == fence[0] and len(mark) >= len(fence):
                fence = None
            continue
        if fence is None:
            h = _H1.match(line)
            if h and h.group(1).strip():
                return h.group(1).strip()
    return None


def title_rule(title_from: object) -> str:
    """``title_from`` checked: one of :data:`TITLE_FROM`, else InvalidInput."""
    if not isinstance(title_from, str) or title_from not in TITLE_FROM:
        raise InvalidInput(
            f"title_from must be one of {', '.join(TITLE_FROM)}, got {title_from!r}"
        )
    return title_from


def parse_page(key: str, text: str, title_from: str = "name") -> Page:
    """Split a file's text into title, body and data (see the module docstring).

    The title is the front matter's ``title``, else (``title_from="heading"``) the first
    ``# `` heading, else the file name: the key's last part."""
    title_from = title_rule(title_from)
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    data: dict[str, Any] = {}
    body = text
    warning = None
    split = _split_front_matter(text)
    if split is not None:
        inner, rest = split
        try:
            loaded = yaml.load(inner, Loader=_SafeLoader)
            if isinstance(loaded, dict):
                data = _jsonable(loaded, [_MAX_YAML_NODES])
                body = rest
            elif loaded is None:
                body = rest
            else:
                warning = (
                    f"front matter is a YAML {type(loaded).__name__}, not a mapping; "
                    "kept as body text"
                )
        except yaml.YAMLError as e:
            where = getattr(e, "problem_mark", None)
            at = f" at line {where.line + 2}" if where is not None else ""
            problem = getattr(e, "problem", None) or type(e).__name__
            warning = f"invalid front matter{at} ({problem}); kept as body text"
        except (_TooBig, RecursionError):
            warning = "front matter is too large or too deeply nested; kept as body text"
    title = data.get("title")
    if isinstance(title, bool | int | float):
        title = _scalar_text(split[0], "title") if split is not None else None
        title = title if title is not None else str(data["title"])
    if not isinstance(title, str) or not title.strip():
        heading = _first_heading(body) if title_from == "heading" else None
        title = heading or key.rsplit("/", 1)[-1]
    title = one_line(title)
    if len(title) > MAX_TITLE_CHARS:  # `put` refuses such a title; a page keeps its start
        cut = f"title is {len(title)} characters; kept its first {MAX_TITLE_CHARS}"
        warning = cut if warning is None else f"{warning}; {cut}"
        title = title[:MAX_TITLE_CHARS]
    title = title or one_line(key) or "untitled"
    return Page(key=key, title=title, body=body, data=data, warning=warning)


# --- the use case --------------------------------------------------------------------------


def import_vault(
    service: Service,
    root: str | Path,
    *,
    scope: str | None = None,
    kind: str = "page",
    retire_missing: bool = False,
    batch_size: int = BATCH_SIZE,
    progress: Progress | None = None,
    valid_from: object = None,
    title_from: str = "name",
) -> ImportSummary:
    """Import every markdown file below ``root`` (see the module docstring), each version
    valid from ``valid_from`` (default now), titled by ``title_from`` (:data:`TITLE_FROM`)."""
    kind = validate_kind(kind)
    title_from = title_rule(title_from)
    sc = service.scope(scope)
    since = service.valid_time(valid_from, "valid_from")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InvalidInput(f"batch size must be a positive integer, got {batch_size!r}")
    base = vault_folder(root)
    found = scan_vault(base, root)
    if retire_missing and not found.files and not found.duplicates and not found.unread:
        # An empty folder, or the wrong one: retiring "every page without a file" would
        # retire the whole scope. Refused before anything is written.
        raise InvalidInput(
            f"no markdown file below {root}: retiring the missing pages would retire every "
            f"current {kind} in {sc}; nothing was changed"
        )
    summary = ImportSummary(root=str(base), scope=sc, kind=kind)
    found.tally(summary)
    written: list[NodeVersion] = []
    files = found.files
    if progress is not None:
        progress(0, len(files))
    for start in range(0, len(files), batch_size):
        chunk = files[start : start + batch_size]
        nodes = [
            node for key, path in chunk
            if (node := prepare_page(service, summary, key, path, kind, sc, base, since,
                                     title_from=title_from)) is not None
        ]
        written += [r.version for r in summary.wrote(service.write_many(nodes))]
        if progress is not None:
            progress(min(start + batch_size, len(files)), len(files))
    if retire_missing:
        current = [v for batch in service.iter_graph() for v, _ in batch
                   if v.is_current and v.kind == kind and v.scope == sc]
        retire_gone(service, summary, current, found, valid_to=since)
    count_links(service, summary, written)
    return summary


def vault_folder(root: str | Path) -> Path:
    """The vault's folder, or NotFound / InvalidInput (nothing read yet)."""
    base = Path(root).expanduser()
    if not base.exists():
        raise NotFound(f"no such directory: {root}")
    if not base.is_dir():
        raise InvalidInput(f"not a directory: {root}")
    return base


@dataclass
class Scanned:
    """What one walk of a vault found: its pages (key, file), the keys found twice (skipped),
    the folders it could not read (their pages are unknown, not gone) and its problems."""

    files: list[tuple[str, Path]]
    duplicates: list[str]
    unread: list[str]
    problems: list[Problem]
    present: set[str] = field(init=False)
    """The keys of the pages found (read once: ``gone`` asks it of every current page)."""

    def __post_init__(self) -> None:
        self.present = {key for key, _ in self.files}

    def tally(self, summary: ImportSummary) -> None:
        summary.files = len(self.files) + len(self.duplicates)
        summary.skipped += len(self.duplicates)
        summary.problems.extend(self.problems)

    def gone(self, key: str | None) -> bool:
        """Whether a page with this key has no file now (and not just an unreadable folder)."""
        return key not in self.present and not (key or "").startswith(tuple(self.unread))


def scan_vault(base: Path, shown: str | Path) -> Scanned:
    """Walk the vault once (see :func:`scan`); InvalidInput when its folder cannot be read."""
    problems: list[Problem] = []
    unread: list[str] = []
    duplicates: list[str] = []
    try:
        files = list(scan(base, problems, unread, duplicates))
    except OSError as e:
        raise InvalidInput(f"cannot read {shown}: {e.strerror or e}") from None
    return Scanned(files, duplicates, unread, problems)


def retire_gone(
    service: Service, summary: ImportSummary, current: Iterable[NodeVersion], found: Scanned,
    *, valid_to: int | None = None,
) -> None:
    """Retire the current pages whose file is gone from the vault (``--retire-missing``)."""
    for version in [v for v in current if found.gone(v.key)]:
        service.retire(version.id, reason="its file is no longer in the vault", valid_to=valid_to)
        summary.retired += 1


def prepare_page(
    service: Service,
    summary: ImportSummary,
    key: str,
    path: Path,
    kind: str,
    scope: str,
    root: Path | None = None,
    valid_from: int | None = None,
    *,
    title_from: str = "name",
) -> NewNode | None:
    """The write request for one file, or None (counted as skipped, the reason in
    ``summary.problems``) when it cannot be read, is not UTF-8 or is not a valid node."""
    try:
        text = _read(path, root)
    except OutsideRoot as e:
        summary.skip(key + ".md", str(e))
        return None
    except TooLarge as e:
        summary.skip(key + ".md", f"{too_large(e)}; skipped")
        return None
    except UnicodeDecodeError as e:
        summary.skip(key + ".md", f"not valid UTF-8 (byte {e.start}); skipped")
        return None
    except OSError as e:
        summary.skip(key + ".md", f"cannot read: {e.strerror or e}; skipped")
        return None
    return page_node(service, summary, key, text, kind=kind, scope=scope, valid_from=valid_from,
                     title_from=title_from)


def too_large(e: TooLarge) -> str:
    return f"is over {e.limit} bytes (9 MiB: 8 MiB of body and 1 MiB of front matter at most)"


def bad_name(key: str) -> str | None:
    """Why a page's file name cannot make a key and title (None: it can). A name that is not
    UTF-8 reaches Python with lone surrogates, which read "title contains a lone surrogate"."""
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:
        return "its name is not valid UTF-8 (a page's key and title come from it)"
    return None


def page_node(
    service: Service,
    summary: ImportSummary,
    key: str,
    text: str,
    *,
    kind: str = "page",
    scope: str | None = None,
    valid_from: object = None,
    data: dict[str, Any] | None = None,
    title_from: str = "name",
) -> NewNode | None:
    """The validated write of one page (key = its path without ``.md``) from its markdown
    text, valid from ``valid_from`` (default now), or None when it cannot be imported (the
    reason is added to ``summary``). ``data`` is merged over the front matter (e.g. a
    ``{"git": {...}}`` entry: a nested mapping, so it makes no links)."""
    if (bad := bad_name(key)) is not None:
        summary.skip(key + ".md", f"{bad}; skipped")
        return None
    page = parse_page(key, text, title_from)
    if page.warning is not None:
        summary.problems.append(Problem(key + ".md", page.warning))
    try:
        return service.prepare(
            kind, page.title, key=page.key, scope=scope, body=page.body,
            data={**page.data, **(data or {})}, valid_from=valid_from,
        )
    except InvalidInput as e:
        summary.skip(key + ".md", f"{e.message}; skipped")
        return None


def import_texts(
    service: Service,
    pages: Sequence[tuple[str, str]],
    *,
    scope: str | None = None,
    kind: str = "page",
    valid_from: object = None,
    data: dict[str, Any] | None = None,
    summary: ImportSummary | None = None,
    root: str = "",
    title_from: str = "name",
) -> ImportSummary:
    """Write pages given as ``(key, markdown text)`` in one transaction, every version valid
    from ``valid_from`` (default now) — e.g. the pages one git commit touched, at the
    commit's time. ``data`` is merged into each page's data (see :func:`page_node`). Counts
    go into ``summary`` (a new one when None), which is returned; links are not counted
    (call ``count_links``). An unchanged page makes no version; a ``valid_from`` before a
    page's latest valid time raises InvalidInput and writes nothing."""
    kind = validate_kind(kind)
    title_from = title_rule(title_from)
    sc = service.scope(scope)
    since = service.valid_time(valid_from, "valid_from")
    if summary is None:
        summary = ImportSummary(root=root, scope=sc, kind=kind)
    summary.files += len(pages)
    nodes = [
        node for key, text in pages
        if (node := page_node(service, summary, key, text, kind=kind, scope=sc,
                              valid_from=since, data=data, title_from=title_from)) is not None
    ]
    summary.wrote(service.write_many(nodes))
    return summary


def count_links(
    service: Service, summary: ImportSummary, versions: Sequence[NodeVersion]
) -> None:
    """Links as the store holds them: ``links`` edges leaving the pages, and dangling targets."""
    status = service.link_status(versions)
    for v in versions:
        edges, missing = status[v.id]
        summary.links_resolved += edges
        summary.links_unresolved += len(missing)
        for target in missing:
            if len(summary.unresolved) < MAX_UNRESOLVED_SHOWN:
                summary.unresolved.append((v.key or v.id, target))
