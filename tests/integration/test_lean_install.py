"""ryvem installed without the ``semantic`` extra: no numpy, onnxruntime or tokenizers.

The README promises that without the extra "search is lexical with a one-line note, never an
error". Two interpreters keep that promise honest:

* ``lean venv`` — a real second install made by ``make test`` (``scripts/run-tests`` creates
  ``.venv-lean`` with ``pip install -e .``, no extra, and exports
  ``RYVEM_TEST_LEAN_PYTHON``); the test first checks that numpy really is absent there.
  Required under ``CI=true``, skipped elsewhere when missing.
* ``extra blocked`` — this suite's own interpreter with the three packages marked absent in
  ``sys.modules`` before ryvem is imported (``import numpy`` then raises
  ``ModuleNotFoundError`` and ``importlib.util.find_spec`` answers None, as when they are not
  installed), so the promise is checked by a plain ``pytest`` run too.

Both run the real CLI and the real ``ryvem-mcp`` (through the MCP SDK's stdio client) in
subprocesses, with a private data dir.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import start_blocking_portal
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import TextContent

from conftest import unavailable

EXTRA = ("numpy", "onnxruntime", "tokenizers")
# What Python does for a package that is not installed: ``import numpy`` raises
# ModuleNotFoundError and ``importlib.util.find_spec("numpy")`` answers None.
BLOCK = f"import sys\nfor _name in {EXTRA!r}:\n    sys.modules[_name] = None\n"
CLI = "import sys\nfrom ryvem.cli.app import main\nsys.argv[0] = 'ryvem'\nsys.exit(main())\n"
MCP = "import sys\nfrom ryvem.mcp.server import main\nsys.exit(main())\n"
NOTE = "note: semantic search is off: "
REMEDY = "pip install 'ryvem[semantic]'"


@dataclass(frozen=True)
class Lean:
    """An interpreter on which ryvem runs without its semantic extra."""

    python: str
    prelude: str  # run before ryvem is imported

    def program(self, body: str) -> list[str]:
        return [self.python, "-c", self.prelude + body]


@pytest.fixture(params=["lean venv", "extra blocked"])
def lean(request: pytest.FixtureRequest) -> Lean:
    if request.param == "extra blocked":
        return Lean(sys.executable, BLOCK)
    python = os.environ.get("RYVEM_TEST_LEAN_PYTHON")
    if not python or not Path(python).exists():
        unavailable("no lean install: RYVEM_TEST_LEAN_PYTHON is unset (make test makes one)")
    probe = subprocess.run([python, "-c", "import numpy"], capture_output=True, check=False)
    assert probe.returncode != 0, f"{python} has numpy: it is not a lean install"
    return Lean(python, "")


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


@pytest.fixture
def ryvem(lean: Lean, tmp_path: Path) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")}
    env["RYVEM_DATA_DIR"] = str(tmp_path / "data")

    def run(*args: str) -> Run:
        p = subprocess.run(
            [*lean.program(CLI), "graph", "--db", str(tmp_path / "m.db"), *args],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
        )
        assert "Traceback" not in p.stderr, p.stderr
        return Run(p.returncode, p.stdout, p.stderr)

    return run


def remember(ryvem: Any) -> None:
    """The demo's two decisions, as an agent records them."""
    for key, title, body in (
        ("session-store", "Keep sessions in signed cookies", "Redis was overkill for 2k users."),
        ("checkout", "Checkout is idempotent",
         "POST /orders takes an Idempotency-Key header; retries are safe."),
    ):
        r = ryvem("put", "decision", "--key", key, "--title", title, "--body", body)
        assert r.code == 0, r.err


def test_without_the_extra_a_question_is_answered_lexically_with_one_note(ryvem: Any) -> None:
    """The default search (hybrid when the model is installed) answers lexically and says so
    once; --json hits carry no semantic rank."""
    remember(ryvem)
    r = ryvem("search", "how do we store sessions?", "--json")
    assert r.code == 0, r.err
    hits = json.loads(r.out)
    assert [h["title"] for h in hits][:1] == ["Keep sessions in signed cookies"]
    assert hits[0]["ranks"] == {"lexical": 1, "semantic": None}
    notes = r.err.splitlines()
    assert len(notes) == 1 and notes[0].startswith(NOTE) and REMEDY in notes[0], r.err

    people = ryvem("search", "what makes checkout retry safe")
    assert people.code == 0, people.err
    assert "Checkout is idempotent" in people.out and "mode lexical" in people.out


def test_without_the_extra_lexical_and_past_searches_need_no_note(ryvem: Any) -> None:
    """Asking for lexical search, or searching the past, works as with the extra."""
    remember(ryvem)
    r = ryvem("search", "sessions", "--mode", "lexical", "--json")
    assert (r.code, r.err) == (0, "")
    assert [h["title"] for h in json.loads(r.out)] == ["Keep sessions in signed cookies"]
    past = ryvem("search", "sessions", "--as-of", "2001-01-01T00:00:00Z", "--json")
    assert past.code == 0 and json.loads(past.out) == [], past.err


def test_without_the_extra_asking_for_meaning_fails_in_one_line_naming_the_extra(
    ryvem: Any,
) -> None:
    """--mode semantic or hybrid cannot be honoured: exit 2, one line, the install command."""
    remember(ryvem)
    for mode in ("semantic", "hybrid"):
        r = ryvem("search", "sessions", "--mode", mode)
        assert r.code == 2 and r.out == "", (mode, r.err)
        assert r.err.count("\n") == 1 and r.err.startswith("error: ") and REMEDY in r.err


def test_without_the_extra_import_and_reindex_queue_the_vectors_and_say_so(
    ryvem: Any, tmp_path: Path,
) -> None:
    """A vault imports and reindexes; the rows wait for the model, and search finds them."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Sessions.md").write_text("Sessions live in signed cookies. See [[Checkout]].\n")
    (vault / "Checkout.md").write_text("Retries are safe: every order has an idempotency key.\n")
    r = ryvem("import", str(vault))
    assert r.code == 0, r.err
    assert "2 pending" in r.out + r.err
    again = ryvem("reindex")
    assert again.code == 0 and NOTE in again.err and "stay queued" in again.err
    found = ryvem("search", "idempotency", "--json")
    assert found.code == 0
    assert [h["title"] for h in json.loads(found.out)] == ["Checkout"]


@pytest.fixture
def mcp_server(lean: Lean, tmp_path: Path) -> Iterator[Any]:
    env = {"RYVEM_BACKEND": "sqlite", "RYVEM_DATA_DIR": str(tmp_path / "data"),
           "HOME": str(tmp_path), "PATH": os.environ.get("PATH", "")}
    if "PYTHONPATH" in os.environ:  # a checkout run without its own install
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    argv = lean.program(MCP)
    params = StdioServerParameters(command=argv[0], args=argv[1:], cwd=tmp_path, env=env)

    def text(result: Any) -> str:
        assert len(result.content) == 1 and isinstance(result.content[0], TextContent)
        return str(result.content[0].text)

    @asynccontextmanager
    async def connected(log: Any) -> AsyncIterator[ClientSession]:
        async with (
            stdio_client(params, errlog=log) as streams,
            ClientSession(*streams) as session,
        ):
            await session.initialize()
            yield session

    with (
        start_blocking_portal() as portal,
        (tmp_path / "server.log").open("w") as log,
        portal.wrap_async_context_manager(connected(log)) as session,
    ):
        def call(tool: str, **arguments: Any) -> tuple[bool, str]:
            r = portal.call(lambda: session.call_tool(tool, arguments))
            return bool(r.is_error), text(r)

        yield call


def test_without_the_extra_the_mcp_server_answers_memory_search_lexically(
    mcp_server: Any,
) -> None:
    """memory_search's default mode answers with the words and a note; mode semantic fails in
    one line naming the extra; the server keeps serving."""
    failed, _ = mcp_server("memory_write", kind="decision", key="session-store",
                           title="Keep sessions in signed cookies")
    assert not failed
    failed, out = mcp_server("memory_search", text="how do we store sessions")
    assert not failed, out
    found = json.loads(out)
    assert found["mode"] == "lexical"
    assert [h["title"] for h in found["items"]] == ["Keep sessions in signed cookies"]
    assert len(found["notes"]) == 1 and REMEDY in found["notes"][0]
    failed, message = mcp_server("memory_search", text="sessions", mode="semantic")
    assert failed and "\n" not in message and REMEDY in message
    failed, out = mcp_server("memory_search", text="cookies", mode="lexical")
    assert not failed and json.loads(out)["items"], out
