"""Running ``ryvem graph …`` for a test: in this process (fast) or as the real console script.

:class:`Cli` calls :func:`ryvem.cli.app.main` in-process through typer's ``CliRunner``
isolation: ``os.environ`` is exactly :attr:`Cli.env` for the call, the working folder is
:attr:`Cli.cwd`, stdin is the given input (else empty) and stdout/stderr are captured apart.
``main`` is what the console script runs, so its exit codes and one-line errors are the real
ones; an exception that escapes it comes back as the process would show it (exit 1 and a
traceback on stderr), so a test asserting "no traceback" can still fail.

:class:`ProcessCli` runs the installed ``ryvem`` script in a subprocess, for what needs a real
process: signals, ``--watch``, a kill, concurrent writers, a pipe or a terminal, the console
script itself. Both have the same interface (``code``/``out``/``err``, ``ok()``, ``json()``).

``RYVEM_EMBEDDING`` is ``off`` unless the test asks for ``semantic=True``: a test that is not
about semantic search does not pay for loading the model.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

RYVEM = shutil.which("ryvem", path=str(Path(sys.executable).parent))
RYVEM_MCP = shutil.which("ryvem-mcp", path=str(Path(sys.executable).parent))

__all__ = ["RYVEM", "RYVEM_MCP", "Cli", "ProcessCli", "Result", "assert_fails", "cli_env"]


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()

    def json(self) -> Any:
        return json.loads(self.out)


def cli_env(data_dir: Path, *, semantic: bool = False) -> dict[str, str]:
    """This process's environment without its ``RYVEM_*`` variables, with ``data_dir`` as
    ``RYVEM_DATA_DIR`` and, unless ``semantic``, ``RYVEM_EMBEDDING=off``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")}
    env["RYVEM_DATA_DIR"] = str(data_dir)
    if not semantic:
        env["RYVEM_EMBEDDING"] = "off"
    return env


@contextmanager
def working_folder(path: Path) -> Iterator[None]:
    """``os.chdir(path)`` for the block, the previous folder back after it."""
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


class _Runner:
    """The shared interface: ``__call__`` runs ``ryvem graph *args``; ``ok`` wants exit 0;
    ``json`` adds ``--json`` and parses stdout."""

    cwd: Path
    env: dict[str, str]

    def __call__(self, *args: str, input: str | bytes | None = None) -> Result:
        raise NotImplementedError

    def ok(self, *args: str, input: str | bytes | None = None) -> Result:
        r = self(*args, input=input)
        assert r.code == 0, f"ryvem graph {' '.join(args)} → {r.code}: {r.err}"
        return r

    def json(self, *args: str, input: str | bytes | None = None) -> Any:
        return self.ok(*args, "--json", input=input).json()


class Cli(_Runner):
    """``ryvem graph …`` in this process, in ``cwd``, against a private data dir."""

    def __init__(self, cwd: Path, data_dir: Path, *, semantic: bool = False) -> None:
        self.cwd = cwd
        self.env = cli_env(data_dir, semantic=semantic)

    def __call__(self, *args: str, input: str | bytes | None = None) -> Result:
        return run_main(["graph", *args], cwd=self.cwd, env=self.env, input=input)


def run_main(
    argv: list[str], *, cwd: Path, env: dict[str, str], input: str | bytes | None = None
) -> Result:
    """``ryvem *argv`` as :func:`ryvem.cli.app.main` runs it, with exactly ``env`` as the
    environment and ``cwd`` as the working folder."""
    from ryvem.cli import app, common

    overrides: dict[str, str | None] = {k: None for k in os.environ if k not in env}
    overrides.update(env)
    common.NOTES.clear()  # a real process starts with none
    with working_folder(cwd), CliRunner().isolation(input=input, env=overrides) as (out, err, _):
        code = 0
        try:
            app.main(argv)
        except SystemExit as e:
            code = _exit_code(e.code)
        except BaseException:  # what the interpreter does with an uncaught exception
            traceback.print_exc()
            code = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
        return Result(code, out.getvalue().decode(), err.getvalue().decode())


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # sys.exit("text") prints the text and exits 1
    return 1


class ProcessCli(_Runner):
    """The real ``ryvem`` console script in a subprocess (same interface as :class:`Cli`)."""

    def __init__(self, cwd: Path, data_dir: Path, *, semantic: bool = False) -> None:
        assert RYVEM is not None, "the ryvem console script is not installed next to python"
        self.cwd = cwd
        self.env = cli_env(data_dir, semantic=semantic)

    def __call__(self, *args: str, input: str | bytes | None = None) -> Result:
        data = input.encode() if isinstance(input, str) else input
        p = subprocess.run(
            [str(RYVEM), "graph", *args], cwd=self.cwd, env=self.env, input=data,
            capture_output=True, timeout=120, check=False,
        )
        return Result(p.returncode, p.stdout.decode(), p.stderr.decode())


def assert_fails(r: Result, code: int, fragment: str = "") -> None:
    """One ``error:`` line naming the problem on stderr, nothing on stdout, the given code."""
    assert r.code == code, (r.code, r.err)
    assert r.out == ""
    assert r.err.startswith("error: ") and r.err.count("\n") == 1, r.err
    assert fragment in r.err
    assert "Traceback" not in r.err
