"""Which characters of stored text a face shows as escapes, never raw (one list for all).

Memory text is untrusted: DEL and the C1 controls (U+009B is a one-byte CSI, U+009D a one-byte
OSC) can drive a terminal, and the bidi overrides and isolates reorder what a line appears to
say. The CLI (:mod:`ryvem.cli.text`), the JSON text of ``--json`` and MCP
(:mod:`ryvem.domain.jsontext`) and the HTML export (:mod:`ryvem.export.markdown`) each add the
C0 controls their format needs escaped to :data:`HIDDEN`, and show a match by :func:`visible`.
"""

from __future__ import annotations

import re

__all__ = ["HIDDEN", "visible"]

HIDDEN = "\x7f-\x9f\u202a-\u202e\u2066-\u2069"
"""A regex character-class body: DEL, the C1 controls, the bidi overrides and isolates."""


def visible(m: re.Match[str]) -> str:
    """A matched character as a visible escape: ``\\xNN`` up to U+00FF, else ``\\uNNNN``."""
    c = ord(m.group(0))
    return f"\\x{c:02x}" if c <= 0xFF else f"\\u{c:04x}"
