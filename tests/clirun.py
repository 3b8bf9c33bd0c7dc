"""Running the real ``ryvem`` console script in a subprocess, shared by the CLI tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RYVEM = shutil.which("ryvem", path=str(Path(sys.executable).parent))


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


class Cli:
    """Runs ``ryvem graph …`` in ``cwd`` against a private data dir (no other RYVEM_ vars)."""

    def __init__(self, cwd: Path, data_dir: Path) -> None:
        assert RYVEM is not None, "the ryvem console script is not installed next to python"
        self.cwd = cwd
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")}
        self.env["RYVEM_DATA_DIR"] = str(data_dir)

    def __call__(self, *args: str, input: str | bytes | None = None) -> Result:
        data = input.encode() if isinstance(input, str) else input
        p = subprocess.run(
            [str(RYVEM), "graph", *args], cwd=self.cwd, env=self.env, input=data,
            capture_output=True, timeout=120, check=False,
        )
        return Result(p.returncode, p.stdout.decode(), p.stderr.decode())

    def ok(self, *args: str, input: str | bytes | None = None) -> Result:
        r = self(*args, input=input)
        assert r.code == 0, f"ryvem graph {' '.join(args)} → {r.code}: {r.err}"
        return r

    def json(self, *args: str, input: str | bytes | None = None) -> Any:
        return self.ok(*args, "--json", input=input).json()


def assert_fails(r: Result, code: int, fragment: str = "") -> None:
    """One ``error:`` line naming the problem on stderr, nothing on stdout, the given code."""
    assert r.code == code, (r.code, r.err)
    assert r.out == ""
    assert r.err.startswith("error: ") and r.err.count("\n") == 1, r.err
    assert fragment in r.err
    assert "Traceback" not in r.err
