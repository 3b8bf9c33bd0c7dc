"""JSON text that is exact and still safe to print on a terminal.

``json.dumps(..., ensure_ascii=False)`` escapes only what JSON must (C0 controls, ``"``,
``\\``), so DEL, the C1 controls (U+009B is a one-byte CSI, U+009D a one-byte OSC) and the
bidi overrides and isolates (U+202A-U+202E, U+2066-U+2069) would reach a terminal raw from
``ryvem graph get --json`` or an MCP host printing a tool result. :func:`dumps` writes those
as ``\\uNNNN`` escapes too: the JSON decodes to exactly the same text, and no stored byte
can drive or reorder the terminal that shows it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ryvem.domain.controls import HIDDEN

__all__ = ["dumps"]

# Only inside JSON strings can these appear, so an escape there is always valid JSON.
_RAW = re.compile(f"[{HIDDEN}]")


def _escape(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group(0)):04x}"


def dumps(value: Any, *, indent: int | None = None) -> str:
    """``value`` as JSON (UTF-8 text, not ASCII-only) with DEL, C1 and bidi controls escaped."""
    return _RAW.sub(_escape, json.dumps(value, ensure_ascii=False, indent=indent))
