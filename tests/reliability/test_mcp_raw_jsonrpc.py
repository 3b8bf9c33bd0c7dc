"""``ryvem-mcp`` over raw stdio, as a hand-written or buggy host speaks to it: every request that
carries an id gets an answer under that id, whatever its params hold, and the server stays up.

No SDK client here: these tests write newline-delimited JSON-RPC to the real console script and
read its lines with a deadline, so a message the server never answers fails the test instead
of hanging it (issue 39: ``data`` nested 200 deep and a 5,000-digit integer got no answer).
"""

from __future__ import annotations

import json
import os
import random
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

RYVEM_MCP = shutil.which("ryvem-mcp", path=str(Path(sys.executable).parent))
TOOLS = ["memory_write", "memory_get", "memory_search", "memory_history", "memory_retire",
         "memory_link", "memory_unlink", "memory_navigate", "graph_export", "memory_redact",
         "no_such_tool"]
METHODS = ["tools/call", "tools/list", "ping", "resources/list", "prompts/list", "initialize",
           "no/such/method", "completion/complete"]


def _long_int(text: str) -> int | str:
    """An integer as JSON writes it; one longer than Python reads, as its digits."""
    return text if len(text.lstrip("-")) > 4300 else int(text)


class RawServer:
    """One ``ryvem-mcp`` process and a line reader with a deadline."""

    def __init__(self, data_dir: Path) -> None:
        assert RYVEM_MCP is not None
        env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")}
        env |= {"RYVEM_DATA_DIR": str(data_dir), "RYVEM_EMBEDDING": "off"}
        self.proc = subprocess.Popen(
            [RYVEM_MCP], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=env, cwd=data_dir.parent,
        )
        self._buffer = b""

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line if line.endswith(b"\n") else line + b"\n")
        self.proc.stdin.flush()

    def send_json(self, message: Any) -> None:
        self.send(json.dumps(message).encode())

    def read(self, timeout: float) -> dict[str, Any] | None:
        """The next message the server writes, or None when none comes in ``timeout``."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        answer: dict[str, Any] = json.loads(line, parse_int=_long_int)
        return answer

    def answer_to(self, request_id: object, timeout: float = 20.0) -> dict[str, Any]:
        while (answer := self.read(timeout)) is not None:
            if answer.get("id") == request_id:
                return answer
        raise AssertionError(f"no answer to request {request_id!r} within {timeout} s")

    def handshake(self) -> None:
        self.send_json({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}})
        assert "result" in self.answer_to("init")
        self.send_json({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, request_id: object, tool: str, arguments: Any) -> dict[str, Any]:
        self.send_json({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                        "params": {"name": tool, "arguments": arguments}})
        return self.answer_to(request_id)

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RawServer]:
    s = RawServer(tmp_path / "data")
    try:
        s.handshake()
        yield s
    finally:
        s.close()


def nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"a": value}
    return value


def tool_error(answer: dict[str, Any]) -> str:
    result = answer["result"]
    assert result["isError"] is True, result
    text: str = result["content"][0]["text"]
    return text


@pytest.mark.parametrize("levels", [40, 190, 200, 1_000, 20_000])
def test_data_nested_at_any_depth_gets_the_nested_too_deep_tool_error(
    server: RawServer, levels: int
) -> None:
    data = '{"a":' * levels + "1" + "}" * levels  # as text: json.dumps stops near 1,000 levels
    server.send(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_write",'
                b'"arguments":{"kind":"task","title":"t","data":%s}}}' % data.encode())
    answer = server.answer_to(1)
    assert "nested deeper than 32 levels" in tool_error(answer)


def test_an_integer_of_5000_digits_in_any_argument_gets_a_tool_error_naming_it(
    server: RawServer,
) -> None:
    huge = "9" * 5000
    for n, (tool, arguments) in enumerate([
        ("memory_search", '{"text": "x", "limit": ' + huge + "}"),
        ("memory_write", '{"kind": "task", "title": "t", "data": {"n": ' + huge + "}}"),
        ("memory_navigate", '{"ref": "task/x", "depth": ' + huge + "}"),
    ]):
        server.send(b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s",'
                    b'"arguments":%s}}' % (n, tool.encode(), arguments.encode()))
        answer = server.answer_to(n)
        if tool == "memory_navigate":  # fail-safe by contract: bad arguments answer []
            assert json.loads(answer["result"]["content"][0]["text"]) == []
        else:
            name = "limit" if tool == "memory_search" else "data"
            assert tool_error(answer).endswith(
                f"{name} holds an integer too long to read (over 4,300 digits)")
    ok = server.call(9, "memory_write", {"kind": "task", "title": "still here"})
    assert ok["result"]["isError"] is False


def test_a_request_that_is_not_valid_json_rpc_gets_an_error_under_its_id(
    server: RawServer,
) -> None:
    for n, line in enumerate([
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":"x"}',
        b'{"id":%d,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":%d,"method":7}',
    ]):
        server.send(line % n)
        assert "error" in server.answer_to(n)


@pytest.mark.parametrize("method", ["tools/call", "ping", "tools/list"])
def test_a_request_whose_own_id_is_too_long_to_read_gets_an_error_under_that_id(
    server: RawServer, method: str,
) -> None:
    """The SDK's parser refuses an integer of over 4,300 digits, the id included, and dropped
    the line: the host waited for ever. The wire answers it under the id as written."""
    long_id = "7" * 5000
    server.send(b'{"jsonrpc":"2.0","id":%s,"method":"%s","params":{"name":"memory_get",'
                b'"arguments":{"ref":"task/x"}}}' % (long_id.encode(), method.encode()))
    answer = server.answer_to(long_id)
    assert answer["error"]["code"] == -32600
    assert "4,300 digits" in answer["error"]["message"]
    ok = server.call(73, "memory_write", {"kind": "task", "title": "after a long id"})
    assert ok["result"]["isError"] is False


def test_replies_pass_the_wire_in_order_and_the_server_ends_promptly_when_stdin_closes(
    tmp_path: Path,
) -> None:
    """ryvem-mcp's replies pass through the wire's stdout pump: a burst of calls gets every
    answer, whole, and closing stdin ends the process at once (the SDK holds a copy of
    stdout, so a pump waiting for the pipe to end kept it alive for ten seconds)."""
    s = RawServer(tmp_path / "data")
    try:
        s.handshake()
        for n in range(40):
            s.send_json({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": "memory_write", "arguments": {"kind": "task", "title": f"t{n}"}}})
        seen: set[object] = set()
        while len(seen) < 40 and (answer := s.read(20)) is not None:
            assert answer["result"]["isError"] is False
            seen.add(answer["id"])
        assert seen == set(range(40))
        assert s.proc.stdin is not None and s.proc.stdout is not None
        s.proc.stdin.close()
        started = time.monotonic()
        assert s.proc.wait(timeout=20) == 0
        assert time.monotonic() - started < 5
        assert s.proc.stdout.read() == b""
    finally:
        s.close()


def test_each_request_of_a_batch_gets_an_error_under_its_own_id(server: RawServer) -> None:
    """MCP reads no JSON-RPC batch (dropped in its 2025-06-18 revision) and the SDK drops the
    line: each request in one is answered, saying batches are not read."""
    server.send(b'[{"jsonrpc":"2.0","id":71,"method":"tools/list"},'
                b'{"jsonrpc":"2.0","method":"notifications/initialized"},'
                b'{"jsonrpc":"2.0","id":"b","method":"ping"}, 5]')
    for request_id in (71, "b"):
        answer = server.answer_to(request_id)
        assert "batch-not-supported" in json.dumps(answer["error"])
    ok = server.call(72, "memory_write", {"kind": "task", "title": "after a batch"})
    assert ok["result"]["isError"] is False


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.35:
        return rng.choice([
            None, True, False, 0, -1, 2**63, rng.randint(-10**6, 10**6), 1.5, float("1e308"),
            "", "x" * rng.randint(1, 300), "caf\u00e9", "\U0001f642", "a\x00b", "task/key",
            "*", "global", "../../etc/passwd", "<script>", "' OR 1=1 --",
        ])
    if roll < 0.45:
        return nested(rng.choice([33, 150, 250, 900]))
    if roll < 0.5:
        return {"__huge__": rng.randint(4301, 6000)}  # an integer literal written out below
    if roll < 0.75:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["kind", "title", "text", "ref", "limit", "data", "scope", "x"]):
            _random_value(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def _encode(value: Any) -> str:
    text = json.dumps(value)
    while '{"__huge__": ' in text:  # a literal of that many digits, which json.dumps won't write
        head, _, rest = text.partition('{"__huge__": ')
        digits, _, tail = rest.partition("}")
        text = head + "7" * int(digits) + tail
    return text


def _random_line(rng: random.Random, request_id: int) -> tuple[bytes, object]:
    """One message, and the id a reply must name (None: it carries none)."""
    roll = rng.random()
    if roll < 0.04:
        return rng.choice([b"not json", b"{", b"\xff\xfe", b'{"a": 1', b"", b"   "]), None
    if roll < 0.08:
        return _encode({"jsonrpc": "2.0", "method": "notifications/x"}).encode(), None
    method = rng.choice(METHODS) if roll < 0.4 else "tools/call"
    params: Any = {"name": rng.choice(TOOLS), "arguments": _random_value(rng)}
    if roll < 0.25:
        params = _random_value(rng)
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    if rng.random() < 0.05:
        del message["jsonrpc"]
    if rng.random() < 0.02:  # an id too long for the SDK's parser: the wire answers it
        long_id = f"{request_id}{'0' * 4400}"
        return _encode(message).replace(
            f'"id": {request_id},', f'"id": {long_id},', 1).encode(), long_id
    return _encode(message).encode(), request_id


def test_a_thousand_random_messages_each_get_an_answer_and_the_server_stays_up(
    server: RawServer,
) -> None:
    rng = random.Random(39)
    expected: list[object] = []
    for n in range(1_000):
        line, request_id = _random_line(rng, n)
        server.send(line)
        if request_id is not None:
            expected.append(request_id)
        if n % 50 == 49:  # in batches, so a slow call cannot fill the pipe
            _collect(server, expected)
    _collect(server, expected)
    final = server.call("final", "memory_write", {"kind": "task", "title": "after the fuzz"})
    assert final["result"]["isError"] is False
    assert server.proc.poll() is None


def _collect(server: RawServer, expected: list[object]) -> None:
    waiting = set(expected)
    while waiting:
        answer = server.read(30.0)
        assert answer is not None, f"no answer to requests {sorted(map(str, waiting))[:10]}"
        assert "result" in answer or "error" in answer, answer
        waiting.discard(answer.get("id"))
    expected.clear()
