"""Stored text on a terminal: shown, never obeyed.

Memory content is untrusted (an agent writes what a web page told it to), so every
human-readable line the CLI prints goes through :func:`safe` (or :func:`say`): C0 controls,
DEL, C1 controls (ESC starts CSI/OSC sequences, U+009B is a one-byte CSI), the bidi
overrides and isolates U+202A-U+202E and U+2066-U+2069 (which reorder what a line appears
to say), and lone surrogates (undecodable bytes from argv or a file name) are shown as
``\\xNN`` / ``\\uNNNN`` escapes. A newline and a tab are kept only where the text is a body
(``keep_lines``). ``--json`` output is not touched: the JSON encoder escapes what JSON must.
"""

from __future__ import annotations

import re

import typer

from ryvem.domain.controls import HIDDEN, visible

__all__ = ["UNSAFE", "safe", "say"]

_REST = HIDDEN + "\ud800-\udfff"  # DEL, C1, bidi, lone surrogates
UNSAFE = re.compile(f"[\x00-\x1f{_REST}]")
_UNSAFE_IN_LINES = re.compile(f"[\x00-\x08\x0b-\x1f{_REST}]")  # keeps tab and newline


def safe(text: object, *, keep_lines: bool = False) -> str:
    """``text`` with every control, bidi override and lone surrogate shown as an escape."""
    pattern = _UNSAFE_IN_LINES if keep_lines else UNSAFE
    return pattern.sub(visible, str(text))


def say(text: object, *, err: bool = False, keep_lines: bool = False) -> None:
    """``typer.echo`` of :func:`safe` text."""
    typer.echo(safe(text, keep_lines=keep_lines), err=err)
