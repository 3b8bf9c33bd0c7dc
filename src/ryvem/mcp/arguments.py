"""Strict tool arguments, and where ``graph_export`` may write.

**Unknown arguments.** A caller's typo (``bdoy``, ``scoep``) must not be dropped silently:
it would write an empty body in the default scope. :func:`seal` marks every tool's input
schema ``additionalProperties: false`` and :func:`unknown_arguments` names the arguments a
call gives that the schema does not list; the server turns them into a tool error (and
``memory_navigate``, fail-safe by contract, into ``[]``).

**The export folder.** ``graph_export`` writes only inside one folder, chosen by whoever
starts the server, never by the caller: ``ryvem-mcp --export-dir DIR``, else the
environment variable ``RYVEM_EXPORT_DIR``, else ``$RYVEM_DATA_DIR/exports``. The caller's
``out`` is a plain file name (:func:`export_name`); a path, ``..``, a hidden name or a name
not ending in ``.html`` is a tool error. The file itself is written by
:func:`ryvem.safefile.write_atomic`, so a symlink or folder planted in the export folder
under that name is refused too.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ryvem.application.forget import export_folder
from ryvem.config import EXPORT_DIR_ENV
from ryvem.domain.validation import LINE_UNSAFE, check_text
from ryvem.errors import InvalidInput

__all__ = [
    "EXPORT_DIR_ENV",
    "MAX_NAME_CHARS",
    "export_dir",
    "export_name",
    "seal",
    "unknown_arguments",
]

MAX_NAME_CHARS = 255


def seal(schemas: Iterable[dict[str, Any]]) -> None:
    """Say ``additionalProperties: false`` in each tool input schema (edited in place)."""
    for schema in schemas:
        schema["additionalProperties"] = False


def unknown_arguments(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> list[str]:
    """The argument names a call gives that the tool's input schema does not list, sorted."""
    known = set(schema.get("properties", {}))
    return sorted(str(name) for name in arguments if name not in known)


def unknown_message(names: list[str], schema: Mapping[str, Any] | None = None) -> str:
    """One line naming the unknown arguments and, given the tool's input ``schema``, the
    names it takes — each typo's likely meaning first — so an agent corrects its call in one
    step (``query=`` for ``memory_search``'s ``text``, ``bdoy`` for ``body``)."""
    shown = ", ".join(repr(n[:60]) for n in names[:10])
    more = f" and {len(names) - 10} more" if len(names) > 10 else ""
    message = f"unknown argument{'s' if len(names) > 1 else ''} {shown}{more}"
    known = [str(k) for k in (schema or {}).get("properties", {})]
    if not known:
        return message
    close = [m[0] for n in names[:10]
             if (m := difflib.get_close_matches(n[:60], known, n=1, cutoff=0.6))]
    if close:
        message += f" (did you mean {', '.join(repr(c) for c in dict.fromkeys(close))}?)"
    return f"{message}; the tool takes {', '.join(known)}"


def export_dir(data_dir: Path, chosen: str | Path | None = None) -> Path:
    """The export folder (:func:`ryvem.application.forget.export_folder`)."""
    return export_folder(data_dir, chosen)


def export_name(out: object) -> str:
    """``out`` as a plain file name inside the export folder, or InvalidInput."""
    if not isinstance(out, str):
        raise InvalidInput("out must be a file name")
    check_text("out", out)
    shown = out[:60]
    if out in ("", ".", "..") or "/" in out or "\\" in out or LINE_UNSAFE.search(out):
        raise InvalidInput(
            f"out {shown!r} is not a plain file name: graph_export writes only into the "
            "server's export folder; give a name such as 'graph.html'"
        )
    if out.startswith("."):
        raise InvalidInput(f"out {shown!r} is a hidden name; give a name such as 'graph.html'")
    if not out.endswith(".html") or len(out) > MAX_NAME_CHARS:
        raise InvalidInput(
            f"out {shown!r} must be a file name ending in .html, at most {MAX_NAME_CHARS} "
            "characters"
        )
    return out
