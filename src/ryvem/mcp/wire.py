"""The stdio wire under ``ryvem-mcp``: a message whose text is not Unicode still gets a reply.

JSON lets a string hold a lone surrogate escape (``"\\udcff"``: valid JSON syntax, not
Unicode text; a buggy host can send one when it cuts an emoji in half). The MCP SDK's stdio
reader (mcp 2.x) parses each line with pydantic's JSON parser, which refuses such a string,
and drops the message: a request gets no reply at all and its host waits until its own
timeout (modelcontextprotocol/python-sdk#2751). ryvem never saw the call, so it could not
answer it as every other bad input is answered: a one-line tool error that writes nothing.

:func:`guard_stdin` puts a pump between the process's stdin and the SDK's reader, and the pump
passes every line through :func:`repair`, which changes only a line whose JSON holds a lone
surrogate (a byte search first, so other lines cost a ``bytes.find``):

* a ``tools/call`` gets its arguments replaced by ``{NOT_UNICODE: [names]}``, the names of
  the arguments that held one; ``RyvemMCPServer.call_tool`` answers it with a tool error
  naming them (``title contains a lone surrogate (not valid Unicode text)``), as the CLI and
  the library refuse that text, and the tool never runs;
* any other message (the handshake, a notification) gets each lone surrogate replaced by
  U+FFFD, as the SDK's reader already replaces bytes that are not UTF-8.

A line that is not JSON, or not UTF-8, passes unchanged: the SDK handles it as before.
"""

from __future__ import annotations

import json
import os
import re
import threading
from typing import Any

__all__ = ["NOT_UNICODE", "guard_stdin", "repair"]

NOT_UNICODE = "__ryvem_not_unicode__"  # the argument a repaired tools/call carries
_LONE = re.compile("[\ud800-\udfff]")  # after json.loads, a valid pair is one code point
_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")  # a surrogate escape, paired or not


def _holds_lone(value: Any) -> bool:
    if isinstance(value, str):
        return _LONE.search(value) is not None
    if isinstance(value, dict):
        return any(_holds_lone(k) or _holds_lone(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_lone(v) for v in value)
    return False


def _replaced(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_replaced(k): _replaced(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replaced(v) for v in value]
    return value


def repair(line: bytes) -> bytes:
    """``line`` as the SDK can read it (see the module doc); unchanged unless its JSON holds
    a lone surrogate."""
    if _ESCAPE.search(line) is None:
        return line
    try:
        message = json.loads(line)
    except ValueError:  # not JSON, or not UTF-8: the SDK's reader says what it says
        return line
    if not _holds_lone(message):
        return line
    params = message.get("params") if isinstance(message, dict) else None
    if (isinstance(params, dict) and message.get("method") == "tools/call"
            and isinstance(params.get("arguments"), dict)):
        arguments = params["arguments"]
        params["arguments"] = {NOT_UNICODE: [
            name for name, value in arguments.items() if _holds_lone(name) or _holds_lone(value)
        ]}
    return json.dumps(_replaced(message), ensure_ascii=False).encode("utf-8") + b"\n"


def guard_stdin() -> None:
    """Read fd 0 through :func:`repair`: fd 0 becomes a pipe that a daemon thread fills from
    the real stdin, line by line, and closes at its end (so the server sees the same EOF).
    Call before the server starts reading."""
    source = os.dup(0)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)

    def pump() -> None:
        with open(source, "rb") as wire, open(write_end, "wb") as out:
            try:
                for line in wire:  # a line as soon as its newline arrives
                    out.write(repair(line))
                    out.flush()
            except OSError:  # the server closed its end: nothing left to pass on
                return

    threading.Thread(target=pump, name="ryvem-stdin", daemon=True).start()
