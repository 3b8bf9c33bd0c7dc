"""The stdio wire under ``ryvem-mcp``: every message the SDK's reader would drop still gets a reply.

The MCP SDK's stdio reader (mcp 2.x) parses each line with pydantic's JSON parser and, when that
parser refuses a line, drops the message: a request gets no reply at all and its host waits
until its own timeout (modelcontextprotocol/python-sdk#2751). ryvem never sees the call, so it
cannot answer it as every other bad input is answered: a one-line tool error that writes
nothing. The parser refuses three kinds of valid JSON:

* a string holding a lone surrogate escape (``"\\udcff"``: valid JSON syntax, not Unicode
  text; a buggy host can send one when it cuts an emoji in half);
* nesting deeper than its recursion limit (about 200 levels);
* an integer of more than 4,300 digits (Python's limit on reading an integer from text).

:func:`guard_stdin` puts a pump between the process's stdin and the SDK's reader, and the pump
passes every line through :func:`repair`, which changes only a line the SDK's own parser refuses
(it is tried first: a few microseconds for an ordinary line):

* a ``tools/call`` gets its arguments replaced by ``{REFUSED: [reasons]}``, one phrase per
  problem naming the arguments that held it (``title contains a lone surrogate (not valid
  Unicode text)``); ``RyvemMCPServer.call_tool`` answers with a tool error made of them, as
  the CLI and the library refuse that input, and the tool never runs;
* any other message (the handshake, a notification) gets each lone surrogate replaced by
  U+FFFD (as the SDK's reader already replaces bytes that are not UTF-8), each over-long
  integer and each value nested past :data:`WIRE_DEPTH` by null, so the SDK can read it and
  answer it as it answers any message.

A request that is JSON but not JSON-RPC the SDK reads (``params`` not an object, no
``"jsonrpc": "2.0"``, a method that is not a string) becomes a request for the method
:data:`INVALID_REQUEST`, which the SDK answers with a JSON-RPC error under the same id. A batch
(a JSON array; MCP has read none since its 2025-06-18 revision, and the SDK drops the line)
becomes one such request per element with an id, the method :data:`INVALID_BATCH`, so each
id gets an error that says why. A line
that is not JSON, not UTF-8, or has no id a reply could name passes unchanged: the SDK reads
nothing it can answer, logs it, and the server goes on with the next line.

One request the SDK can never answer: one whose own id is an integer of over 4,300 digits
(its parser refuses the id itself, so no message it could write names it). The wire answers
it itself (:func:`unnamed_reply`: an Invalid Request error under the id exactly as written),
through :func:`guard_stdout`, which puts a pump between the SDK's writer and the process's
stdout so that the wire's line and the SDK's never cut into each other.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp import types

from ryvem.domain.validation import MAX_DATA_DEPTH

__all__ = [
    "INVALID_BATCH", "INVALID_REQUEST", "REFUSED", "WIRE_DEPTH", "guard_stdin", "guard_stdout",
    "repair", "unnamed_reply",
]

REFUSED = "__ryvem_refused__"  # the argument a repaired tools/call carries
INVALID_REQUEST = "ryvem/invalid-request"  # the method a request the SDK cannot read becomes
INVALID_BATCH = "ryvem/batch-not-supported"  # and each request of a batch (an array)
WIRE_DEPTH = 100  # nesting the wire lets through as it is (the SDK's parser stops near 200)
MAX_INT_DIGITS = 4300  # Python's default int_max_str_digits
_LONE = re.compile("[\ud800-\udfff]")  # after json.loads, a valid pair is one code point
_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")  # a surrogate escape, paired or not
_NOT_UNICODE = "a lone surrogate (not valid Unicode text)"
_TOO_DEEP = f"nested deeper than {MAX_DATA_DEPTH} levels"
_TOO_LONG = f"an integer too long to read (over {MAX_INT_DIGITS:,} digits)"
# Each problem, in the order a refusal names them, with its verb for one argument and several.
_VERBS = {_NOT_UNICODE: ("contains", "contain"), _TOO_DEEP: ("is", "are"),
          _TOO_LONG: ("holds", "hold")}


@dataclass(frozen=True, slots=True)
class _LongInt:
    """An integer literal too long for ``int()``, kept as written."""

    text: str


def _read_int(text: str) -> int | _LongInt:
    return _LongInt(text) if len(text.lstrip("-")) > MAX_INT_DIGITS else int(text)


def _problems(value: Any, depth: int = 1) -> set[str]:
    """What in ``value`` the SDK's parser refuses (a set of the phrases above)."""
    if isinstance(value, str):
        return {_NOT_UNICODE} if _LONE.search(value) else set()
    if isinstance(value, _LongInt):
        return {_TOO_LONG}
    if not isinstance(value, dict | list):
        return set()
    if depth > WIRE_DEPTH:
        return {_TOO_DEEP}
    found: set[str] = set()
    for k, v in value.items() if isinstance(value, dict) else enumerate(value):
        if isinstance(k, str) and _LONE.search(k):
            found.add(_NOT_UNICODE)
        found |= _problems(v, depth + 1)
    return found


def _readable(value: Any, depth: int = 1) -> Any:
    """``value`` with what the SDK's parser refuses replaced (U+FFFD, or null)."""
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value)
    if isinstance(value, _LongInt):
        return None
    if isinstance(value, dict | list) and depth > WIRE_DEPTH:
        return None
    if isinstance(value, dict):
        return {_readable(k): _readable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_readable(v, depth + 1) for v in value]
    return value


def _reasons(arguments: dict[str, Any]) -> list[str]:
    """One phrase per problem, naming the arguments that hold it, in the arguments' order."""
    held: dict[str, list[str]] = {}
    for name, value in arguments.items():
        problems = _problems(value, 2) | ({_NOT_UNICODE} if _LONE.search(name) else set())
        for problem in problems:
            held.setdefault(problem, []).append(_LONE.sub("\ufffd", name))
    out = []
    for problem, (one, many) in _VERBS.items():
        if problem in held:
            names = held[problem]
            out.append(f"{', '.join(names)} {one if len(names) == 1 else many} {problem}")
    return out


def _sdk_reads(line: bytes) -> bool:
    """Whether the SDK's reader reads ``line`` as a JSON-RPC message (its own parser)."""
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception:  # pydantic's ValidationError, or a parser error it raises as such
        return False
    return True


def repair(line: bytes) -> bytes:
    """``line`` as the SDK can read it (see the module doc); unchanged when the SDK reads it."""
    if _sdk_reads(line):
        return line
    try:
        message = json.loads(line, parse_int=_read_int)
    except RecursionError:  # deeper than Python reads: answer a tool call if it says it is one
        return _unreadable_call(line)
    except ValueError:  # not JSON, or not UTF-8: the SDK's reader says what it says
        return line
    if isinstance(message, list):  # a JSON-RPC batch: MCP reads none (2025-06-18 dropped them)
        return b"".join(_batched(item) for item in message) or line  # no id: as it is
    if not isinstance(message, dict):
        return line
    return _repaired(message, line)


def _batched(item: Any) -> bytes:
    """One message of a batch, on a line of its own: answered as if sent alone (a request the
    SDK could read becomes an invalid one, so each id gets an error saying batches are not
    read); without an id it is dropped, as a notification is never answered."""
    return _invalid_request(item, b"", method=INVALID_BATCH) if isinstance(item, dict) else b""


def _repaired(message: dict[str, Any], line: bytes) -> bytes:
    if _problems(message):
        params = message.get("params")
        if (isinstance(params, dict) and message.get("method") == "tools/call"
                and isinstance(params.get("arguments"), dict)):
            params["arguments"] = {REFUSED: _reasons(params["arguments"])}
        repaired = json.dumps(_readable(message), ensure_ascii=False).encode("utf-8") + b"\n"
        if _sdk_reads(repaired):
            return repaired
    return _invalid_request(message, line)


def _invalid_request(
    message: dict[str, Any], line: bytes, *, method: str = INVALID_REQUEST
) -> bytes:
    """A request the SDK cannot read as JSON-RPC (``params`` not an object, no ``jsonrpc``,
    a method that is not a string) becomes one it answers with an error (method not found)
    under the same id; without an id (a string or an integer) nothing can name the answer,
    and the line passes to the SDK as it is."""
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return line
    reply = {"jsonrpc": "2.0", "id": request_id, "method": method}
    return json.dumps(reply, ensure_ascii=False).encode("utf-8", "replace") + b"\n"


# A message's id and tool name as clients write them, before the arguments: read by pattern
# only from a line nested too deep for Python's reader.
_ID = re.compile(rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?'
                 rb'"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,200}")')
_NAME = re.compile(rb'"method"\s*:\s*"tools/call"\s*,\s*"params"\s*:\s*\{\s*'
                   rb'"name"\s*:\s*"([^"\\]{1,200})"')


def _unreadable_call(line: bytes) -> bytes:
    """A message nested too deep for Python's reader: a tools/call becomes a refused call with
    the same id, another request an invalid one — when its id (and a call's tool name) stand
    before the arguments, as clients write them; else the line passes as it is."""
    found_id = _ID.search(line)
    if found_id is None:
        return line
    request_id = json.loads(found_id.group(1))
    found_name = _NAME.search(line)
    if found_name is None:
        return _invalid_request({"id": request_id}, line)
    reply = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
             "params": {"name": found_name.group(1).decode("utf-8", "replace"),
                        "arguments": {REFUSED: [f"an argument is {_TOO_DEEP}"]}}}
    return json.dumps(reply).encode("utf-8") + b"\n"


_LONG_ID = re.compile(rb"-?\d{%d}" % (MAX_INT_DIGITS + 1))


def unnamed_reply(line: bytes) -> bytes | None:
    """The error a request gets whose own id is an integer too long for the SDK to read (it
    drops the line: no reply it writes could name the id), under that id as written; None
    for any other line. Cheap for an ordinary line: only one holding such a run of digits
    is parsed."""
    if not _LONG_ID.search(line):
        return None
    try:
        message = json.loads(line, parse_int=_read_int)
    except (ValueError, RecursionError):
        return None
    request_id = message.get("id") if isinstance(message, dict) else None
    if not isinstance(request_id, _LongInt):
        return None
    error = json.dumps({"code": types.INVALID_REQUEST, "message": (
        f"Invalid Request: the id is {_TOO_LONG}; use a shorter id")})
    return (f'{{"jsonrpc":"2.0","id":{request_id.text},"error":{error}}}\n').encode("ascii")


# Where the wire's own answers go: the stdout pump's (see guard_stdout), else nowhere.
_answer: Callable[[bytes], None] | None = None


_END = b"\x00ryvem-wire-end\x00\n"  # never a line the SDK writes (JSON escapes NUL)


def guard_stdout() -> Callable[[], None]:
    """Write fd 1 through a pump: fd 1 becomes a pipe the SDK writes into, and a thread
    passes each whole line on to the real stdout under a lock, so a reply of the wire's own
    (:func:`unnamed_reply`) goes out between two of the SDK's, never inside one. Returns the
    function that ends it, once the server has stopped writing: it flushes ``sys.stdout``,
    sends the pump a last line of its own (the SDK keeps a copy of fd 1 open, so the pipe
    never ends by itself), waits until every line before it has passed, and puts the real
    stdout back on fd 1. Call before :func:`guard_stdin` and before the server starts."""
    global _answer
    sys.stdout.flush()
    real = os.dup(1)
    read_end, write_end = os.pipe()
    os.dup2(write_end, 1)
    lock = threading.Lock()

    def send(line: bytes) -> None:
        with lock:
            view = memoryview(line)
            while view:
                view = view[os.write(real, view):]

    def pump() -> None:
        with open(read_end, "rb") as piped:
            try:
                for line in piped:
                    if line == _END:
                        return
                    send(line)
            except OSError:  # the host closed our stdout: nothing more can reach it
                return

    thread = threading.Thread(target=pump, name="ryvem-stdout", daemon=True)
    thread.start()
    _answer = send

    def end() -> None:
        with contextlib.suppress(OSError, ValueError):  # closed, or its reader gone
            sys.stdout.flush()
        if thread.is_alive():
            os.set_blocking(write_end, False)  # a pump that stopped reading cannot hang us
            with contextlib.suppress(OSError):
                os.write(write_end, _END)
            thread.join(timeout=10)
        os.dup2(real, 1)
        os.close(write_end)

    return end


def guard_stdin() -> None:
    """Read fd 0 through :func:`repair`: fd 0 becomes a pipe that a daemon thread fills from
    the real stdin, line by line, and closes at its end (so the server sees the same EOF).
    A request only the wire can answer (:func:`unnamed_reply`) is answered through
    :func:`guard_stdout` when it guards stdout, and not passed on. Call before the server
    starts reading."""
    source = os.dup(0)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)

    def pump() -> None:
        with open(source, "rb") as wire, open(write_end, "wb") as out:
            try:
                for line in wire:  # a line as soon as its newline arrives
                    reply = unnamed_reply(line) if _answer is not None else None
                    if reply is not None and _answer is not None:
                        _answer(reply)
                        continue
                    out.write(repair(line))
                    out.flush()
            except OSError:  # the server closed its end: nothing left to pass on
                return

    threading.Thread(target=pump, name="ryvem-stdin", daemon=True).start()
