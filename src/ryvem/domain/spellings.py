"""The spellings of a text: the forms ryvem itself reads a body's text in, and writes it in.

A body is markdown, and the product decodes it in two ways before anyone reads it:

* the export's renderer (markdown-it) decodes backslash escapes and HTML entity references
  (``&#115;``, ``&#x73;``, ``&amp;``) everywhere but in code, with markdown-it's own rule
  (:data:`markdown_it.common.utils.UNESCAPE_ALL_RE`), in text and in link destinations;
* a link target is percent-decoded (``%2D`` is ``-``): by :mod:`ryvem.domain.links`, and by
  the browser following an ``href`` the page wrote.

So ``tok%2Dpctsecret`` and ``tok-pct&#115;ecret`` *are* ``tok-pctsecret`` to whoever reads
the page. :func:`spelled_spans` finds every span of a body whose decoded reading holds a
text — after entity and escape decoding, after percent decoding, and after both in that
order (an entity can spell a ``%``) — so a redaction rewrites each such spelling, not only
the literal one. It decodes in code too (a superset: a spelling in code the page shows as
written is redacted as well). A body holding none of :data:`DECODING_MARKS` reads as
written, which is how a store finds the few bodies worth decoding.

The other direction, the forms the page *writes* a text in (HTML escapes), is
:func:`html_forms`; the export adds its JSON escaping on top (``ryvem.export.written_forms``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from html import escape
from urllib.parse import unquote

from markdown_it.common.utils import UNESCAPE_ALL_RE, replaceEntityPattern

__all__ = [
    "DECODING_MARKS", "folded_spans", "html_forms", "merged", "reads_as", "spelled_spans",
]

DECODING_MARKS = ("&", "%", "\\")
"""What every encoded spelling holds: an entity's ``&``, a percent escape's ``%``, a
backslash escape's ``\\``."""

_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")  # a run: one UTF-8 sequence may span several
Span = tuple[int, int]
# A decoded text with, for each of its characters, the span of the source it came from.
_View = tuple[str, list[Span]]


def _unescape(m: re.Match[str]) -> str:
    """One backslash escape or entity reference as the renderer decodes it."""
    return m.group(1) or replaceEntityPattern(m.group(0), m.group(2))


def _percent(m: re.Match[str]) -> str:
    return unquote(m.group(0))


_DECODERS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (UNESCAPE_ALL_RE, _unescape),
    (_PERCENT, _percent),
)


def _decode_plain(text: str, steps: tuple[int, ...]) -> str:
    for i in steps:
        pattern, decode = _DECODERS[i]
        text = pattern.sub(decode, text)
    return text


def _decode(view: _View, step: int) -> _View:
    """``view`` decoded once more, each new character mapped to the source it came from (a
    character decoded from several source characters maps to all of them)."""
    text, where = view
    pattern, decode = _DECODERS[step]
    out: list[str] = []
    spans: list[Span] = []
    last = 0
    for m in pattern.finditer(text):
        out.append(text[last:m.start()])
        spans.extend(where[last:m.start()])
        decoded = decode(m)
        whole = (where[m.start()][0], where[m.end() - 1][1])
        out.append(decoded)
        spans.extend([whole] * len(decoded))
        last = m.end()
    out.append(text[last:])
    spans.extend(where[last:])
    return "".join(out), spans


# The readings of a body: entities and escapes decoded, percent escapes decoded, both.
_READINGS = ((0,), (1,), (0, 1))


def _found(text: str, view: _View) -> Iterator[Span]:
    decoded, where = view
    at = decoded.find(text)
    while at >= 0:
        end = at + len(text)
        yield min(s for s, _ in where[at:end]), max(e for _, e in where[at:end])
        at = decoded.find(text, end)


def reads_as(body: str, text: str) -> bool:
    """Whether ``body`` holds ``text`` as written or in any spelling the product decodes
    (the test :func:`spelled_spans` maps to spans, without the mapping)."""
    if text in body:
        return True
    if not any(mark in body for mark in DECODING_MARKS):
        return False
    return any(text in _decode_plain(body, steps) for steps in _READINGS)


def spelled_spans(body: str, text: str) -> list[Span]:
    """The spans of ``body`` (start, end; sorted, disjoint) whose decoded reading holds
    ``text`` in a spelling other than the literal one (see the module docstring); ``[]``
    when no reading does. The literal spelling is the caller's: a span here may hold a
    literal occurrence too, so the caller replaces the literal ones first."""
    if not any(mark in body for mark in DECODING_MARKS):
        return []
    found: list[Span] = []
    for steps in _READINGS:
        if text not in _decode_plain(body, steps):
            continue  # the usual case: only a reading that holds it is mapped
        view: _View = (body, [(i, i + 1) for i in range(len(body))])
        for step in steps:
            view = _decode(view, step)
        found.extend(_found(text, view))
    return merged(found)


def merged(spans: list[Span]) -> list[Span]:
    """``spans`` sorted, overlapping ones joined into one."""
    out: list[Span] = []
    for start, end in sorted(spans):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def _fold(view: _View) -> _View:
    """``view`` case-folded, each folded character mapped to the source it came from."""
    text, where = view
    out: list[str] = []
    spans: list[Span] = []
    for ch, span in zip(text, where, strict=True):
        folded = ch.casefold()
        out.append(folded)
        spans.extend([span] * len(folded))
    return "".join(out), spans


def folded_spans(written: str, text: str, *, percent: bool) -> list[Span]:
    """The spans of a link target as ``written`` whose comparison form — percent-decoded
    when ``percent`` (a markdown link's destination), then case-folded, as
    :func:`ryvem.domain.links.normalize` compares targets — holds ``text``; ``[]`` when it
    does not (``TOK%2DSECRET`` holds ``tok-secret``: the whole of it)."""
    view: _View = (written, [(i, i + 1) for i in range(len(written))])
    if percent:
        view = _decode(view, 1)
    return merged(list(_found(text, _fold(view))))


def html_forms(text: str) -> set[str]:
    """The forms ``text`` takes as HTML in a page: as written, and HTML-escaped (a rendered
    body, as markdown-it escapes, or fully)."""
    plain = escape(text, quote=False)
    return {text, plain, plain.replace('"', "&quot;"), escape(text)}
