"""Rules every value must pass before it reaches a store.

Kinds and rels are lowercase slugs, so they are safe wherever a backend cannot take them
as parameters (Cypher labels and relationship types). Text may not carry NUL bytes or
lone surrogates, which no backend stores faithfully.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from ryvem.errors import InvalidInput

__all__ = [
    "LINE_UNSAFE",
    "MAX_BODY_BYTES",
    "MAX_DATA_BYTES",
    "MAX_DATA_DEPTH",
    "MAX_KEY_CHARS",
    "MAX_SEARCH_CHARS",
    "MAX_TITLE_CHARS",
    "SLUG",
    "check_text",
    "check_unicode",
    "one_line",
    "shorten",
    "validate_body",
    "validate_data",
    "validate_key",
    "validate_kind",
    "validate_rel",
    "validate_title",
]

SLUG = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*\Z")  # \Z: `$` would accept a trailing newline
MAX_SLUG_CHARS = 64
MAX_KEY_CHARS = 1024
MAX_TITLE_CHARS = 1000
MAX_BODY_BYTES = 8 * 1024 * 1024
MAX_DATA_BYTES = 1024 * 1024
MAX_DATA_DEPTH = 32
MAX_REASON_CHARS = 2000
MAX_SEARCH_CHARS = 10_000
LINE_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""What a one-line name (title, key) may not hold: C0 controls (newline and tab included),
DEL, C1 controls, and the bidi overrides and isolates. Such text could drive a terminal or
make a line say something else; bodies may hold it (every face escapes it on output).
U+2028/U+2029 are allowed: no terminal obeys them, and the export escapes them."""


def shorten(text: str, limit: int = 40) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_text(what: str, value: str) -> str:
    """Reject NUL bytes and lone surrogates, which no store keeps faithfully."""
    if "\x00" in value:
        raise InvalidInput(f"{what} contains a NUL byte")
    return check_unicode(what, value)


def check_unicode(what: str, value: str) -> str:
    """Reject lone surrogates (undecodable bytes from argv, or a ``\\udcff`` escape in
    JSON): no store, tokenizer or model takes them."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(f"{what} contains a lone surrogate (not valid Unicode text)") from None
    return value


_EXAMPLES = {
    "kind": "'decision' or 'business-rule'",
    "rel": "'implements' or 'depends-on'",
}


def _slug(what: str, value: object) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a string")
    if len(value) > MAX_SLUG_CHARS or not SLUG.match(value):
        raise InvalidInput(
            f"invalid {what} {shorten(value)!r}: use a lowercase slug like {_EXAMPLES[what]} "
            f"(a-z, 0-9 and single hyphens, at most {MAX_SLUG_CHARS} characters)"
        )
    return value


def validate_kind(value: object) -> str:
    return _slug("kind", value)


def validate_rel(value: object) -> str:
    return _slug("rel", value)


def validate_key(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidInput("key must be a string")
    check_text("key", value)
    if not value.strip():
        raise InvalidInput("key must not be empty")
    if value != value.strip():
        raise InvalidInput(f"key {shorten(value)!r} has leading or trailing whitespace")
    if len(value) > MAX_KEY_CHARS:
        raise InvalidInput(f"key is {len(value)} characters; the limit is {MAX_KEY_CHARS}")
    if LINE_UNSAFE.search(value):
        raise InvalidInput(_unsafe_message("key", value))
    return value


def validate_title(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidInput("title must be a string")
    check_text("title", value)
    if not value.strip():
        raise InvalidInput("title must not be empty")
    if len(value) > MAX_TITLE_CHARS:
        raise InvalidInput(f"title is {len(value)} characters; the limit is {MAX_TITLE_CHARS}")
    if LINE_UNSAFE.search(value):
        raise InvalidInput(_unsafe_message("title", value))
    return value


def _unsafe_message(what: str, value: str) -> str:
    found = LINE_UNSAFE.search(value)
    at = "" if found is None else f" (U+{ord(found.group(0)):04X} at position {found.start()})"
    return (
        f"{what} contains a newline, control or bidi-override character{at}; "
        f"a {what} is one line of plain text"
    )


def one_line(text: str) -> str:
    """``text`` as a one-line name: runs of whitespace and unsafe characters become a space."""
    return " ".join(LINE_UNSAFE.sub(" ", text).split())


def validate_body(value: object) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidInput("body must be a string")
    check_text("body", value)
    size = len(value.encode("utf-8"))
    if size > MAX_BODY_BYTES:
        raise InvalidInput(f"body is {size} bytes; the limit is {MAX_BODY_BYTES} (8 MiB)")
    return value


def validate_search_text(value: object) -> str:
    """A search text: any Unicode string of at most MAX_SEARCH_CHARS characters (a query, not
    a document: past a few pages of words a longer text only costs time — 12 MB took 13 to 23 s)."""
    if not isinstance(value, str):
        raise InvalidInput(f"the search text must be a string, got {type(value).__name__}")
    if len(value) > MAX_SEARCH_CHARS:
        raise InvalidInput(
            f"the search text is {len(value):,} characters; the limit is {MAX_SEARCH_CHARS:,}")
    return check_unicode("the search text", value)


def validate_reason(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput("reason must be a string")
    check_text("reason", value)
    if len(value) > MAX_REASON_CHARS:
        raise InvalidInput(f"reason is {len(value)} characters; the limit is {MAX_REASON_CHARS}")
    return value


def _check_json(value: Any, depth: int) -> None:
    # depth counts nested objects and arrays; a scalar leaf adds no level.
    if isinstance(value, dict | list) and depth > MAX_DATA_DEPTH:
        raise InvalidInput(f"data is nested deeper than {MAX_DATA_DEPTH} levels")
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise InvalidInput("data keys must be strings")
            check_text("a data key", k)
            _check_json(v, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_json(item, depth + 1)
    elif isinstance(value, str):
        check_text("a data value", value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput("data may not contain NaN or infinity")
    elif value is not None and not isinstance(value, bool | int):
        raise InvalidInput(f"data may only hold JSON values, not {type(value).__name__}")


def validate_data(value: object) -> dict[str, Any]:
    """A JSON object, at most MAX_DATA_DEPTH deep and MAX_DATA_BYTES serialised."""
    if value is None:
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except RecursionError:
            raise InvalidInput(f"data is nested deeper than {MAX_DATA_DEPTH} levels") from None
        except json.JSONDecodeError:
            raise InvalidInput("data is not valid JSON") from None
        except ValueError:  # valid JSON; Python reads at most 4,300 digits of an integer
            raise InvalidInput("data holds an integer too long to read (over 4,300 digits); "
                               "give it as a string") from None
    if not isinstance(value, dict):
        raise InvalidInput("data must be a JSON object (e.g. '{\"status\": \"open\"}')")
    try:
        _check_json(value, 1)
    except RecursionError:
        raise InvalidInput(f"data is nested deeper than {MAX_DATA_DEPTH} levels") from None
    size = len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
    if size > MAX_DATA_BYTES:
        raise InvalidInput(f"data is {size} bytes; the limit is {MAX_DATA_BYTES} (1 MiB)")
    return value
