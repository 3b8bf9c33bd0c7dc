"""Forgetting, as pure rules: what a redaction or a purge makes of a version and an edge.

ryvem never deletes, except here. Two ways to forget, both rewriting content in place and
never the skeleton (id, entity, kind, key, scope, window, supersede chain):

* **redact** TEXT: every occurrence of TEXT (literal, case-sensitive: no pattern, no
  folding) becomes ``[redacted]`` in a version's title, body, retire reason and data (string
  values and object keys at any depth; a number whose JSON form holds TEXT becomes the
  string ``[redacted]``), and in its link targets, which are derived again
  from the redacted body and data (:func:`redact_version`); in an edge, in its data's strings.
  A link whose target holds TEXT only once normalised (written in another case:
  ``[[Tok-Secret]]`` links to ``tok-secret``) has that part of its written target redacted
  too (:func:`redact_link_targets`), so the body never states a link the stored targets
  lack.
  In a body, TEXT is also matched in every spelling the product decodes — a percent-encoded
  link target, an HTML entity or a backslash escape the export's renderer decodes
  (:mod:`ryvem.domain.spellings`) — and each such span becomes ``[redacted]`` whole
  (:func:`redact_body`), so no decodable copy is left in a version marked redacted.
* **purge** a node: every version's title becomes ``[purged]``, its body and data empty, its
  link targets none, its retire reason (when it had one) ``[purged]``; its edges' data ``{}``.

A rewritten version carries ``erased`` = ``"redacted"`` or ``"purged"`` (a purge wins over an
earlier redaction), so every face can say the text there is not what was written.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from ryvem.domain.links import Link, extract_links, normalize, target_spans
from ryvem.domain.model import Edge, NodeVersion
from ryvem.domain.spellings import folded_spans, spelled_spans
from ryvem.errors import InvalidInput

__all__ = [
    "MIN_TEXT_CHARS",
    "PURGED",
    "REDACTED",
    "Erasure",
    "Rewritten",
    "TextTooShort",
    "check_redaction_text",
    "links_of",
    "purge_version",
    "redact_body",
    "redact_data",
    "redact_edge_data",
    "redact_link_targets",
    "redact_text",
    "redact_version",
    "redacted_further",
    "skeleton_part",
    "stated_links",
]

REDACTED = "[redacted]"
PURGED = "[purged]"
MIN_TEXT_CHARS = 8
"""A shorter TEXT is refused without ``force``: "password" is 8, and a 3-letter TEXT would
rewrite words everywhere."""
Erasure = Literal["redacted", "purged"]


class TextTooShort(InvalidInput):
    """The TEXT to redact is shorter than :data:`MIN_TEXT_CHARS` and not forced. The message
    names no remedy: only some faces can force (the CLI's ``--force``), and each says how."""


@dataclass(frozen=True, slots=True)
class Rewritten:
    """A version's new content (its skeleton cannot be expressed here, so cannot change)."""

    id: str
    title: str
    body: str
    data: dict[str, Any]
    retired_reason: str | None
    erased: Erasure
    targets: tuple[str, ...]
    occurrences: int


def check_redaction_text(text: object, *, force: bool = False) -> str:
    """The TEXT to redact, or InvalidInput: not text, empty, not valid Unicode, shorter than
    :data:`MIN_TEXT_CHARS` without ``force``, or a part of the markers themselves (it could
    never be gone: the replacement would hold it)."""
    if not isinstance(text, str):
        raise InvalidInput("the text to redact must be a string")
    if text == "":
        raise InvalidInput("the text to redact must not be empty")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(
            "the text to redact contains a lone surrogate (not valid Unicode text)"
        ) from None
    if len(text) < MIN_TEXT_CHARS and not force:
        raise TextTooShort(
            f"the text to redact is {len(text)} characters; under {MIN_TEXT_CHARS} it would "
            "likely hit ordinary words"
        )
    if text in REDACTED or text in PURGED:
        raise InvalidInput(
            f"the text to redact occurs in the markers {REDACTED} and {PURGED}, so it could "
            "never be removed"
        )
    return text


def redact_text(value: str, text: str, marker: str = REDACTED) -> tuple[str, int]:
    """``value`` with every occurrence of ``text`` replaced by ``[redacted]`` (or
    ``marker``), and how many.

    Replaced until none is left: a replacement can never hold ``text`` (see
    :func:`check_redaction_text`), but one next to original characters could form it again.
    """
    count = 0
    while text in value:
        count += value.count(text)
        value = value.replace(text, marker)
    return value, count


def redact_body(body: str, text: str) -> tuple[str, int]:
    """A body with ``text`` redacted as written (:func:`redact_text`) and in every other
    spelling the product decodes (:func:`~ryvem.domain.spellings.spelled_spans`: each span
    whose decoded reading holds it becomes ``[redacted]`` whole), and how many. Repeated
    until no reading holds it: a marker next to original characters could spell it again."""
    body, count = redact_text(body, text)
    while spans := spelled_spans(body, text):
        body = _replace_spans(body, spans)
        again, n = redact_text(body, text)
        body, count = again, count + len(spans) + n
    return body, count


def _replace_spans(value: str, spans: list[tuple[int, int]]) -> str:
    """``value`` with each (sorted, disjoint) span replaced by ``[redacted]``."""
    pieces: list[str] = []
    last = 0
    for start, end in spans:
        pieces += [value[last:start], REDACTED]
        last = end
    return "".join([*pieces, value[last:]])


def redact_link_targets(body: str, key: str | None, text: str) -> tuple[str, int]:
    """``body`` with ``text`` redacted inside every link whose *normalised* target holds it
    (written in another case, ``[x](TOK%2DSECRET.md)`` or ``[[Tok-Secret]]``, such a link
    points at a target holding ``text``: the store keeps targets in that form), and how
    many. Only the part of the written target that folds to ``text`` goes; after two
    rounds a target still holding it (a marker beside its neighbours could spell it) goes
    whole. Text outside links keeps its case: a redaction matches it as written."""
    count = 0
    for round_ in range(3):
        spans: list[tuple[int, int]] = []
        for start, end, target, percent in target_spans(body, key):
            if text in target:
                inner = folded_spans(body[start:end], text, percent=percent)
                if round_ == 2 or not inner:  # not found as folded (NFC): the whole target
                    inner = [(0, end - start)]
                spans += [(start + s, start + e) for s, e in inner]
        if not spans:
            break
        body = _replace_spans(body, sorted(spans))
        count += len(spans)
    return body, count


def _redact_data_links(
    data: dict[str, Any], key: str | None, text: str
) -> tuple[dict[str, Any], int]:
    """:func:`redact_link_targets` in the data's top-level strings and lists of strings,
    where a node's data holds links (``ryvem.domain.links``)."""
    total = 0

    def one(item: Any) -> Any:
        nonlocal total
        if not isinstance(item, str) or "[[" not in item:
            return item
        new, n = redact_link_targets(item, key, text)
        total += n
        return new

    out = {name: [one(i) for i in value] if isinstance(value, list) else one(value)
           for name, value in data.items()}
    return (out, total) if total else (data, 0)


# What stands for the marker while a redacted version's links are read: "[redacted]" inside
# "[[…]]" breaks the link's syntax ("[[Other|alias [redacted]]]" is no link, and
# "[[[redacted]]]" one to a page "redacted"), so links are read from the text with this
# instead, and a link whose target holds it (TEXT was in the target) is dropped.
_IN_LINKS = "\x00"


def _redacted_links(body: str, key: str | None, data: dict[str, Any]) -> list[Link]:
    """The links a redacted text states (see :data:`_IN_LINKS`)."""
    read = extract_links(body.replace(REDACTED, _IN_LINKS), key,
                         redact_data(data, REDACTED, _IN_LINKS)[0])
    return [link for link in read if _IN_LINKS not in link.target]


def stated_links(
    body: str, key: str | None, data: dict[str, Any], erased: Erasure | None
) -> list[Link]:
    """:func:`links_of` for a version's parts (a checker reading rows, not versions)."""
    if erased == "purged":
        return []
    if erased == "redacted":
        return _redacted_links(body, key, data)
    return extract_links(body, key, data)


def links_of(v: NodeVersion) -> list[Link]:
    """The links a stored version's text states: a purged one none, a redacted one read past
    its markers (a link whose target was redacted is gone, one whose alias was keeps its
    target), any other as written (:func:`~ryvem.domain.links.extract_links`). Every reading
    of a stored version's links goes through here, so a later re-reading agrees with what the
    redaction stored (a sweep found "[[[redacted]]]" linked to a page "redacted" once one
    existed)."""
    return stated_links(v.body, v.key, v.data, v.erased)


def redact_data(value: Any, text: str, marker: str = REDACTED) -> tuple[Any, int]:
    """A JSON value with ``text`` redacted in every string, object keys included, and in
    every number whose JSON form holds it: that number becomes the string ``[redacted]``
    whole (a card number or an account id is data too; half a number would state a wrong
    one)."""
    if isinstance(value, str):
        return redact_text(value, text, marker)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        written = json.dumps(value)
        return (marker, written.count(text)) if text in written else (value, 0)
    if isinstance(value, list):
        out_list = []
        total = 0
        for item in value:
            new, n = redact_data(item, text, marker)
            out_list.append(new)
            total += n
        return out_list, total
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        total = 0
        for k, v in value.items():
            new_key, nk = redact_text(k, text, marker)
            new_value, nv = redact_data(v, text, marker)
            if new_key in out:  # two keys that differed only by the secret: keep both
                i = 2
                while f"{new_key} ({i})" in out:
                    i += 1
                new_key = f"{new_key} ({i})"
            out[new_key] = new_value
            total += nk + nv
        return out, total
    return value, 0


def skeleton_part(v: NodeVersion, text: str) -> str | None:
    """Which part of what a redaction cannot change holds ``text`` — ``"kind"``, ``"key"``,
    ``"folded key"`` (the key as links compare it, case-folded: the store keeps that form too)
    or ``"scope"`` — or None. Such a node must be purged, or its content written under
    another key. A redaction is all or nothing: it never marks versions redacted while the
    store still holds the text in such a node (``ryvem graph redact`` names them)."""
    if text in v.kind:
        return "kind"
    if text in v.scope:
        return "scope"
    if v.key is not None and text in v.key:
        return "key"
    if v.key is not None and text in normalize(v.key):
        return "folded key"
    return None


def redact_version(
    v: NodeVersion, targets: tuple[str, ...], text: str
) -> Rewritten | None:
    """The version with ``text`` redacted, or None when it holds no occurrence.

    Link targets are derived again from the redacted body and data (so they agree with what
    the body now says): a link whose target held ``text`` is gone, one whose alias held it
    stays (read past the markers, :func:`links_of`); a target that still holds ``text`` (a
    link written in another case than TEXT whose folded form matches it) is redacted too.
    """
    title, n_title = redact_text(v.title, text)
    body, n_body = redact_body(v.body, text)
    body, n_links = redact_link_targets(body, v.key, text)
    n_body += n_links
    data, n_data = redact_data(v.data, text)
    data, n_data_links = _redact_data_links(data, v.key, text)
    n_data += n_data_links
    reason, n_reason = (None, 0) if v.retired_reason is None else redact_text(
        v.retired_reason, text
    )
    content_changed = n_title + n_body + n_data + n_reason > 0
    if n_body or n_data:
        derived = tuple(link.target for link in _redacted_links(body, v.key, data))
    else:
        derived = targets
    new_targets: list[str] = []
    n_targets = 0
    for t in derived:
        new_t, n = redact_text(t, text)
        n_targets += n
        if new_t not in new_targets:
            new_targets.append(new_t)
    occurrences = n_title + n_body + n_data + n_reason + n_targets
    if not content_changed and n_targets == 0:
        return None
    return Rewritten(
        id=v.id,
        title=title,
        body=body,
        data=data,
        retired_reason=reason,
        erased="purged" if v.erased == "purged" else "redacted",
        targets=tuple(new_targets),
        occurrences=occurrences,
    )


def purge_version(v: NodeVersion) -> Rewritten:
    """The version with its content erased: ``[purged]`` title, no body, data or targets."""
    return Rewritten(
        id=v.id,
        title=PURGED,
        body="",
        data={},
        retired_reason=None if v.retired_reason is None else PURGED,
        erased="purged",
        targets=(),
        occurrences=0,
    )


def redact_edge_data(e: Edge, text: str) -> tuple[dict[str, Any], int]:
    """An edge's data with ``text`` redacted in every string (keys included)."""
    data, n = redact_data(e.data, text)
    assert isinstance(data, dict)
    return data, n


def _text_redacted_further(before: str, after: str) -> bool:
    """Whether ``after`` is ``before`` with some spans (one character or more each) replaced
    by ``[redacted]``, and nothing else changed. Linear: the literal pieces between
    ``after``'s markers are found in ``before`` in order, each as early as it can be (which
    leaves the most room for the rest); a marker ``before`` already had matches a marker."""
    if REDACTED not in after:
        return after == before
    first, *middle, last = after.split(REDACTED)
    end = len(before) - len(last)
    if not before.startswith(first) or not before.endswith(last) or end <= len(first):
        return False
    pos = len(first)
    for piece in middle:
        at = before.find(piece, pos + 1)  # at least one character gone before it
        if at < 0:
            return False
        pos = at + len(piece)
    return pos < end  # and at least one before the last piece


_COLLIDED = re.compile(r" \(\d+\)$")  # what redact_data appends to a key that collided


def _data_redacted_further(before: Any, after: Any) -> bool:
    """:func:`_text_redacted_further` for a JSON value, as :func:`redact_data` rewrites one:
    strings and object keys (a key that collided carries " (2)"), and a number replaced whole
    by the marker."""
    if isinstance(after, str) and isinstance(before, str):
        return _text_redacted_further(before, after)
    if after == REDACTED and isinstance(before, (int, float)) and not isinstance(before, bool):
        return True
    if isinstance(after, list) and isinstance(before, list):
        return len(after) == len(before) and all(
            _data_redacted_further(b, a) for b, a in zip(before, after, strict=True))
    if isinstance(after, dict) and isinstance(before, dict):
        if len(after) != len(before):
            return False
        left = list(before.items())
        for key, value in after.items():
            bare = _COLLIDED.sub("", key) if REDACTED in key else key
            match = next((i for i, (k, v) in enumerate(left)
                          if _text_redacted_further(k, bare)
                          and _data_redacted_further(v, value)), None)
            if match is None:
                return False
            left.pop(match)
        return True
    return bool(before == after and type(before) is type(after))


def redacted_further(before: NodeVersion, after: NodeVersion) -> bool:
    """Whether ``after`` is ``before`` with more of its text redacted (title, body, retire
    reason and data) and nothing else changed: what a later redaction in another store made
    of the same version. A row each side redacted differently is not."""
    texts = [
        (before.title, after.title),
        (before.body, after.body),
        (before.retired_reason or "", after.retired_reason or ""),
    ]
    return (
        (before.retired_reason is None) == (after.retired_reason is None)
        and all(_text_redacted_further(b, a) for b, a in texts)
        and _data_redacted_further(before.data, after.data)
    )
