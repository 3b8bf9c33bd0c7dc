"""The link grammar: which targets a node links to, and which key each resolves to.

Grammar (pinned by ``tests/unit/test_link_grammar.py``):

* ``[[slug]]``, ``[[slug|alias]]`` (also ``\\|`` inside tables), ``[[slug#heading]]``,
  ``[[slug#^block]]``, ``[[slug@L12c42]]``, ``[[slug@1458]]`` and ``![[embed]]`` link to
  *slug*; a leading ``^`` (SilverBullet's meta-page caret, ``[[^Library/Std]]``) is dropped.
  A slug starting ``./`` or ``../`` (Obsidian's "relative path" link format,
  ``[[../b/Note]]``) is taken relative to the linking page's folder, as a markdown link's
  path is; one climbing above the vault's root links nowhere.
  The suffix (``#heading``, ``#^block``, ``@L12``, ``@L12c42``, ``@1458`` — SilverBullet's
  line/column and character positions) is the link's *anchor*, kept as written;
* ``[text](path.md)`` and ``![text](path.md)`` (also ``<path with spaces.md>``) link to
  *path*, percent-decoded, with ``./`` and ``../`` taken relative to the linking page's key;
  a path climbing above the vault's root links nowhere; ``#part`` is the anchor;
* wiki links inside the node's *data* (an imported page's front matter) link too: in a
  top-level string value, or in the string items of a top-level list; the link remembers
  that field (``deciders: "[[Zef Hemel]]"`` is field ``deciders``). Only ``[[…]]`` counts
  there (front matter is YAML, not markdown); nested mappings stay data;
* ``[[#heading]]`` and ``[[@12]]`` (the page itself), a link to the page's own key, links
  inside inline code or fenced/indented code blocks, URLs with a scheme (``https://…``,
  ``mailto:…``) and targets with an asset extension (png, jpg, gif, svg, pdf, canvas,
  excalidraw, …) make no link.

A target is listed once per node and spelling (``[[Note]]`` and ``[[note]]`` are two links),
with the anchor and field of its first appearance in file order: the data's fields (in key
order), then the body.

Resolution (:func:`resolve`) is a pure function of the candidate keys and the linking node:
targets and keys are compared after Unicode NFC normalisation, case folding, and stripping
surrounding whitespace, a leading ``/`` and a trailing ``.md``. Among current keys in the
linking node's scope, else in ``global``: (1) the exact key — the key spelled as the link
is, before case folding (``[[note]]`` reaches ``note`` over ``Note``), else the key equal
after case folding; (2) else the unique key whose
last ``/`` segment equals the target (for a written path such as ``b/foo``: the unique key
ending in ``/b/foo``); (3) if several, the one with the fewest segments, then the linking
node's own kind, then the nearest to the linking node's key (its own folder first, then the
nearest ancestor's subtree), then key order. A key that does not end with the written path
never matches, so ``[[b/foo]]`` does not resolve to ``c/foo``. Ids, clocks and insertion
order never decide.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt

__all__ = [
    "ASSET_EXTENSIONS",
    "Candidate",
    "Link",
    "extract_links",
    "extract_targets",
    "normalize",
    "resolve",
    "resolve_links",
    "spelling",
    "split_anchor",
    "tail",
    "target_spans",
]

ASSET_EXTENSIONS = frozenset({
    "png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "ico", "tif", "tiff", "avif", "heic",
    "pdf", "canvas", "excalidraw", "mp3", "mp4", "wav", "ogg", "webm", "mov", "m4a", "flac",
    "zip", "gz", "tar", "csv", "json", "yaml", "yml", "txt", "html", "css", "js", "ts", "py",
})
_GLOBAL = "global"
_WIKI = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")
# SilverBullet's position suffixes: @L<line>, @L<line>C<column> (1-based), @<offset> (0-based).
_POSITION = re.compile(r"@(?:[Ll][0-9]+(?:[Cc][0-9]+)?|[0-9]+)\s*\Z")
_MDLINK = re.compile(
    r"!?\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]"  # [text], one level of nested brackets
    r"\(\s*(?:<([^<>\n]+)>|([^()\s<>]+(?:\([^()\s]*\))?))"  # (<dest>) or (dest)
    r"(?:\s+[\"'(][^\n]*?[\"')])?\s*\)"  # optional "title"
)
# A scheme followed by something other than a space: "https://x", "mailto:a@b" — but not
# a page called "Note: draft".
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:(?!\s)")
# A code span may span lines but never a blank line (a paragraph break).
_INLINE_CODE = re.compile(r"(`+)(?!`)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.DOTALL)
# Block structure only: code blocks are all this module needs from a markdown parser.
_MAY_HOLD_CODE = re.compile(r"`|~~~|^(?: {4}|\t)", re.MULTILINE)
_md = MarkdownIt("commonmark").disable(["inline", "text_join"])


def normalize(text: str) -> str:
    """The comparison form of a key or a link target."""
    return _trim(unicodedata.normalize("NFC", text).strip().casefold())


def spelling(text: str) -> str:
    """A key or link target as :func:`normalize` compares it, but not case-folded: what an
    exact key match compares."""
    return _trim(unicodedata.normalize("NFC", text).strip())


def _trim(text: str) -> str:
    t = text.lstrip("/")
    if t[-3:].casefold() == ".md":
        t = t[:-3]
    return t.strip()


def tail(normalized: str) -> str:
    """The last ``/`` segment of a normalised key or target."""
    return normalized.rsplit("/", 1)[-1]


def _strip_code(body: str) -> str:
    """Blank out fenced/indented code blocks and inline code spans with spaces, keeping
    every character's position (so a link found in the result is where it is in ``body``)."""
    if not _MAY_HOLD_CODE.search(body):
        return body
    lines = body.split("\n")
    for tok in _md.parse(body):
        if tok.type in ("fence", "code_block") and tok.map:
            start, end = tok.map
            for i in range(start, min(end, len(lines))):
                lines[i] = " " * len(lines[i])
    text = "\n".join(lines)
    return _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), text)


def _is_asset(path: str) -> bool:
    base = path.rsplit("/", 1)[-1]
    if "." not in base:
        return False
    return base.rsplit(".", 1)[-1].strip().lower() in ASSET_EXTENSIONS


def split_anchor(ref: str) -> tuple[str, str | None]:
    """(page, anchor) of a wiki link's target as written, alias already removed.

    The anchor is ``#heading`` / ``#^block`` (from the first ``#``) or a trailing position
    ``@L12``, ``@L12c42``, ``@1458``, as written; a leading ``^`` caret is dropped from the
    page. ``"Alpha@L3"`` gives ``("Alpha", "@L3")``; ``"me@example"`` stays a page name.
    """
    page, hash_, heading = ref.partition("#")
    anchor = "#" + heading.strip() if hash_ and heading.strip() else None
    position = _POSITION.search(page)
    if position is not None:
        anchor = position.group(0).strip() if anchor is None else anchor
        page = page[: position.start()]
    page = page.strip()
    if page.startswith("^"):
        page = page[1:].strip()
    return page, anchor


def _wikilink_target(
    inner: str, source_key: str | None = None
) -> tuple[str, str | None] | None:
    page, anchor = split_anchor(inner.replace("\\|", "|").split("|", 1)[0])
    if not page or _URL.match(page) or _is_asset(page):
        return None
    if page.startswith(("./", "../")):
        relative = _relative(page, source_key)
        return None if relative is None else (relative, anchor)
    return page, anchor


def _relative(path: str, source_key: str | None) -> str | None:
    """``path`` taken from the folder of the page ``source_key``; None above the root."""
    base = posixpath.dirname(source_key) if source_key else ""
    joined = posixpath.normpath(posixpath.join(base, path))
    if joined in (".", "..") or joined.startswith("../"):
        return None
    return joined


def _mdlink_target(href: str, source_key: str | None) -> tuple[str, str | None] | None:
    href = href.strip()
    if not href or href.startswith(("#", "//")) or _URL.match(href):
        return None
    before, hash_, fragment = href.partition("#")
    path = unquote(before.split("?", 1)[0]).strip()
    if not path.lower().endswith(".md"):
        return None
    anchor = "#" + unquote(fragment).strip() if hash_ and fragment.strip() else None
    if path.startswith("/"):
        return path, anchor
    joined = _relative(path, source_key)
    return None if joined is None else (joined, anchor)


@dataclass(frozen=True, slots=True)
class Link:
    """One link of a node: its normalised target, and where and how it was written."""

    target: str
    anchor: str | None = None  # "#heading", "#^block", "@L12c42", "@1458": as written
    field: str | None = None  # the data (front-matter) field holding it; None in the body
    # The target before case folding (see :func:`spelling`); None: not known, so only the
    # folded target decides. Equality is the edge's (target, anchor, field).
    written: str | None = dataclasses.field(default=None, compare=False)

    def edge_data(self) -> dict[str, str]:
        """The ``data`` of the ``links`` edge it makes: ``target``, ``anchor``, ``field``."""
        data = {"target": self.target}
        if self.anchor is not None:
            data["anchor"] = self.anchor
        if self.field is not None:
            data["field"] = self.field
        return data


def _data_links(
    data: Mapping[str, Any], source_key: str | None
) -> Iterable[tuple[str, str, str | None]]:
    """(field, page, anchor) of the wiki links in top-level strings and lists of strings."""
    for name in sorted(data):
        value = data[name]
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, str) and "[[" in item:
                for m in _WIKI.finditer(item):
                    found = _wikilink_target(m.group(1), source_key)
                    if found is not None:
                        yield name, found[0], found[1]


@dataclass(frozen=True, slots=True)
class _Ref:
    """A link as written in a body: ``body[start:end]`` is its target as written (a wiki
    link's inside, a markdown link's destination, which is percent-encoded)."""

    at: int  # where the whole link starts: file order
    start: int
    end: int
    page: str
    anchor: str | None
    percent: bool


def _body_refs(body: str, source_key: str | None) -> list[_Ref]:
    """Each link in ``body`` outside code, in file order."""
    if "[" not in body:
        return []
    text = _strip_code(body)
    found: list[_Ref] = []
    for m in _WIKI.finditer(text):
        wiki = _wikilink_target(m.group(1), source_key)
        if wiki is not None:
            found.append(_Ref(m.start(), *m.span(1), *wiki, percent=False))
    for m in _MDLINK.finditer(text):
        group = 1 if m.group(1) is not None else 2
        md = _mdlink_target(m.group(group) or "", source_key)
        if md is not None:
            found.append(_Ref(m.start(), *m.span(group), *md, percent=True))
    found.sort(key=lambda ref: ref.at)
    return found


def target_spans(
    body: str, source_key: str | None = None
) -> list[tuple[int, int, str, bool]]:
    """(start, end, normalised target, percent-encoded?) of each link
    :func:`extract_links` reads in ``body``, where its target is written: what a redaction
    rewrites when a target holds a text only once normalised (``[x](TOK%2DSECRET.md)``
    links to ``tok-secret``)."""
    return [(r.start, r.end, normalize(r.page), r.percent) for r in _body_refs(body, source_key)]


def extract_links(
    body: str, source_key: str | None = None, data: Mapping[str, Any] | None = None
) -> list[Link]:
    """A node's links, one per normalised target, in file order (data fields, then body).

    ``source_key`` is the linking node's key: relative markdown links are taken from its
    folder, and a link to the node itself is dropped. ``data`` is the node's data (an
    imported page's front matter).
    """
    raw: list[tuple[str, str | None, str | None]] = [
        (page, anchor, name) for name, page, anchor in _data_links(data or {}, source_key)
    ]
    raw += [(ref.page, ref.anchor, None) for ref in _body_refs(body, source_key)]
    out: list[Link] = []
    seen: set[str] = set()
    self_key = normalize(source_key) if source_key else None
    for page, anchor, name in raw:
        norm, written = normalize(page), spelling(page)
        if norm and written not in seen and norm != self_key:
            seen.add(written)
            out.append(Link(norm, anchor, name, written))
    return out


def extract_targets(
    body: str, source_key: str | None = None, data: Mapping[str, Any] | None = None
) -> list[str]:
    """The normalised targets of :func:`extract_links`, each once, in the same order."""
    return list(dict.fromkeys(link.target for link in extract_links(body, source_key, data)))


@dataclass(frozen=True, slots=True)
class Candidate:
    """A current keyed node a link might resolve to."""

    entity: str
    kind: str
    key: str
    scope: str
    norm: str = field(init=False, repr=False, compare=False)  # normalize(key), computed once
    spelled: str = field(init=False, repr=False, compare=False)  # spelling(key)

    def __post_init__(self) -> None:
        object.__setattr__(self, "norm", normalize(self.key))
        object.__setattr__(self, "spelled", spelling(self.key))


def _ends_with(norm_key: str, target: str) -> bool:
    return norm_key == target or norm_key.endswith("/" + target)


def resolve(
    target: str,
    scope: str,
    kind: str,
    candidates: Iterable[Candidate],
    source_key: str | None = None,
    written: str | None = None,
) -> Candidate | None:
    """The node a normalised target (see :func:`normalize`) resolves to from a linking node.

    The linking node is in ``scope``, of ``kind``, with key ``source_key`` (None: unkeyed,
    as if at the vault's root). ``written`` is the target's :func:`spelling` (None: not
    known, so a key equal after case folding is as exact as one spelled the same).
    ``candidates`` must include every current keyed node sharing the target's last segment
    (extra candidates are ignored). See the module docstring.
    """
    if not target:
        return None
    pool = [c for c in candidates if _ends_with(c.norm, target)]
    for tier in dict.fromkeys((scope, _GLOBAL)):
        in_tier = [c for c in pool if c.scope == tier]
        if in_tier:
            return _pick(target, written, kind, _folder(source_key), in_tier)
    return None


def resolve_links(
    links: Iterable[Link],
    entity: str,
    scope: str,
    kind: str,
    key: str | None,
    by_tail: Mapping[str, Sequence[Candidate]],
) -> tuple[dict[str, Link], list[str]]:
    """What a node's links make: the ``links`` edges it should have, and its dangling targets.

    Returns (target entity → the first link resolving to it, the targets resolving to no
    node). A link resolving to the node itself makes neither. ``by_tail`` maps a last
    segment to its candidates (see :func:`resolve`).
    """
    want: dict[str, Link] = {}
    dangling: list[str] = []
    for link in links:
        hit = resolve(
            link.target, scope, kind, by_tail.get(tail(link.target), ()), key, link.written
        )
        if hit is None:
            if link.target not in dangling:
                dangling.append(link.target)
        elif hit.entity != entity:
            want.setdefault(hit.entity, link)
    return want, dangling


def _folder(key: str | None) -> tuple[str, ...]:
    """The normalised folder segments of a key (``()`` at the root or without a key)."""
    if not key:
        return ()
    return tuple(normalize(key).split("/")[:-1])


def _distance(here: tuple[str, ...], norm_key: str) -> int:
    """Levels from the folder ``here`` up to the nearest ancestor whose subtree holds the key."""
    there = norm_key.split("/")[:-1]
    common = 0
    for a, b in zip(here, there, strict=False):
        if a != b:
            break
        common += 1
    return len(here) - common


def _pick(
    target: str,
    written: str | None,
    kind: str,
    here: tuple[str, ...],
    pool: Sequence[Candidate],
) -> Candidate:
    return min(
        pool,
        key=lambda c: (
            c.spelled != written,  # (1) the exact key as spelled (never, if not known)
            c.norm != target,  # (1) else the exact key after case folding
            c.norm.count("/"),  # (3) the fewest segments
            c.kind != kind,  # the linking node's own kind
            _distance(here, c.norm),  # the nearest folder
            c.norm,  # key order (then the raw key and kind, so the order is total)
            c.key,
            c.kind,
        ),
    )
