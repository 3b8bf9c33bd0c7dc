"""The link grammar: which targets a markdown body links to, and which key each resolves to.

Grammar (pinned by ``tests/unit/test_link_grammar.py``):

* ``[[slug]]``, ``[[slug|alias]]`` (also ``\\|`` inside tables), ``[[slug#heading]]``,
  ``[[slug#^block]]`` and ``![[embed]]`` link to *slug*; a leading ``^`` (SilverBullet's
  meta-page caret, ``[[^Library/Std]]``) is dropped;
* ``[text](path.md)`` and ``![text](path.md)`` (also ``<path with spaces.md>``) link to
  *path*, percent-decoded, with ``./`` and ``../`` taken relative to the linking page's key;
  a path climbing above the vault's root links nowhere;
* ``[[#heading]]`` (the page itself), links inside inline code or fenced/indented code
  blocks, URLs with a scheme (``https://…``, ``mailto:…``) and targets with an asset
  extension (png, jpg, gif, svg, pdf, canvas, excalidraw, …) make no link.

Resolution (:func:`resolve`): targets and keys are compared after Unicode NFC normalisation,
case folding, and stripping surrounding whitespace, a leading ``/`` and a trailing ``.md``.
Among current keys in the linking node's scope, else in ``global``:
(1) the exact key; (2) else the unique key whose last ``/`` segment equals the target (for a
written path such as ``b/foo``: the unique key ending in ``/b/foo``); (3) if several, the one
with the fewest segments (ties: the same kind as the linking node, then the oldest). A key
that does not end with the written path never matches, so ``[[b/foo]]`` does not resolve
to ``c/foo``.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from urllib.parse import unquote

from markdown_it import MarkdownIt

__all__ = ["ASSET_EXTENSIONS", "Candidate", "extract_targets", "normalize", "resolve", "tail"]

ASSET_EXTENSIONS = frozenset({
    "png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "ico", "tif", "tiff", "avif", "heic",
    "pdf", "canvas", "excalidraw", "mp3", "mp4", "wav", "ogg", "webm", "mov", "m4a", "flac",
    "zip", "gz", "tar", "csv", "json", "yaml", "yml", "txt", "html", "css", "js", "ts", "py",
})
_GLOBAL = "global"
_WIKI = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")
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
    t = unicodedata.normalize("NFC", text).strip().casefold()
    t = t.lstrip("/")
    if t.endswith(".md"):
        t = t[:-3]
    return t.strip()


def tail(normalized: str) -> str:
    """The last ``/`` segment of a normalised key or target."""
    return normalized.rsplit("/", 1)[-1]


def _strip_code(body: str) -> str:
    """Blank out fenced/indented code blocks and inline code spans, keeping line numbers."""
    if not _MAY_HOLD_CODE.search(body):
        return body
    lines = body.split("\n")
    for tok in _md.parse(body):
        if tok.type in ("fence", "code_block") and tok.map:
            start, end = tok.map
            for i in range(start, min(end, len(lines))):
                lines[i] = ""
    text = "\n".join(lines)
    return _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), text)


def _is_asset(path: str) -> bool:
    base = path.rsplit("/", 1)[-1]
    if "." not in base:
        return False
    return base.rsplit(".", 1)[-1].strip().lower() in ASSET_EXTENSIONS


def _wikilink_target(inner: str) -> str | None:
    target = inner.replace("\\|", "|").split("|", 1)[0]
    target = target.split("#", 1)[0].strip()
    if target.startswith("^"):
        target = target[1:].strip()
    if not target or _URL.match(target) or _is_asset(target):
        return None
    return target


def _mdlink_target(href: str, source_key: str | None) -> str | None:
    href = href.strip()
    if not href or href.startswith(("#", "//")) or _URL.match(href):
        return None
    path = unquote(href.split("#", 1)[0].split("?", 1)[0]).strip()
    if not path.lower().endswith(".md"):
        return None
    if path.startswith("/"):
        return path
    base = posixpath.dirname(source_key) if source_key else ""
    joined = posixpath.normpath(posixpath.join(base, path))
    if joined == ".." or joined.startswith("../"):
        return None
    return joined


def extract_targets(body: str, source_key: str | None = None) -> list[str]:
    """Normalised link targets of a body, in order of first appearance, without repeats.

    ``source_key`` is the linking page's key: relative markdown links are taken from its
    folder, and a link to the page itself is dropped.
    """
    if "[" not in body:
        return []
    text = _strip_code(body)
    found: list[tuple[int, str]] = []
    for m in _WIKI.finditer(text):
        target = _wikilink_target(m.group(1))
        if target is not None:
            found.append((m.start(), target))
    for m in _MDLINK.finditer(text):
        target = _mdlink_target(m.group(1) or m.group(2) or "", source_key)
        if target is not None:
            found.append((m.start(), target))
    found.sort()
    out: list[str] = []
    seen: set[str] = set()
    self_key = normalize(source_key) if source_key else None
    for _, raw in found:
        norm = normalize(raw)
        if norm and norm not in seen and norm != self_key:
            seen.add(norm)
            out.append(norm)
    return out


@dataclass(frozen=True, slots=True)
class Candidate:
    """A current keyed node a link might resolve to."""

    entity: str
    kind: str
    key: str
    scope: str
    norm: str = field(init=False, repr=False, compare=False)  # normalize(key), computed once

    def __post_init__(self) -> None:
        object.__setattr__(self, "norm", normalize(self.key))


def _ends_with(norm_key: str, target: str) -> bool:
    return norm_key == target or norm_key.endswith("/" + target)


def resolve(
    target: str, scope: str, kind: str, candidates: Iterable[Candidate]
) -> Candidate | None:
    """The node a normalised target (see :func:`normalize`) resolves to from ``kind``/``scope``.

    ``candidates`` must include every current keyed node sharing the target's last segment
    (extra candidates are ignored). See the module docstring for the rule.
    """
    if not target:
        return None
    pool = [c for c in candidates if _ends_with(c.norm, target)]
    for tier in dict.fromkeys((scope, _GLOBAL)):
        in_tier = [c for c in pool if c.scope == tier]
        if in_tier:
            return _pick(target, kind, in_tier)
    return None


def _pick(target: str, kind: str, pool: Sequence[Candidate]) -> Candidate:
    exact = [c for c in pool if c.norm == target]
    if exact:
        return min(exact, key=lambda c: (c.kind != kind, c.entity))
    return min(pool, key=lambda c: (c.norm.count("/"), c.kind != kind, c.entity))
