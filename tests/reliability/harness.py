"""Spawning worker processes (worker.py) and reading what they report."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from conftest import unavailable
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service

WORKER = Path(__file__).with_name("worker.py")


def spawn(*args: object) -> subprocess.Popen[str]:
    """Start ``worker.py`` with these arguments in its own process."""
    return subprocess.Popen(
        [sys.executable, str(WORKER), *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


@dataclass
class Report:
    code: int
    lines: list[str]
    stderr: str

    @property
    def errors(self) -> list[str]:
        return [line for line in self.lines if line.startswith("error ")]

    @property
    def done(self) -> int:
        return sum(int(line.split()[1]) for line in self.lines if line.startswith("done "))


def finish(proc: subprocess.Popen[str], timeout: float = 600) -> Report:
    out, err = proc.communicate(timeout=timeout)
    return Report(proc.returncode, out.splitlines(), err)


def service(path: Path) -> Service:
    return Service(SqliteRepository.open(path))


RYVEM = Path(sys.executable).with_name("ryvem")


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


def unprivileged() -> list[str]:
    """A command prefix under which file permissions bind, even for root.

    Root ignores a file's mode (CAP_DAC_OVERRIDE), so as root the command runs through
    ``setpriv`` without the capabilities that bypass permission checks.
    """
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        unavailable("running as root without setpriv: cannot make a file read-only to ryvem")
    drop = "-dac_override,-dac_read_search,-fowner"
    return [setpriv, f"--bounding-set={drop}", f"--inh-caps={drop}"]


def ryvem(
    *args: str | Path, cwd: Path, data_dir: Path | None = None, prefix: Sequence[str] = (),
    input: bytes | None = None,
) -> Run:
    """Run the real ``ryvem`` console script (outside any git tree: ``cwd`` is a temp dir)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RYVEM_")}
    env["RYVEM_DATA_DIR"] = str(data_dir or cwd / "data")
    p = subprocess.run(
        [*prefix, str(RYVEM), *map(str, args)], cwd=cwd, env=env, input=input,
        capture_output=True, timeout=120, check=False,
    )
    return Run(p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))


def one_clean_line(run: Run, code: int) -> str:
    """Assert a failure exited ``code`` with exactly one line on stderr and no traceback."""
    assert run.code == code, f"exit {run.code}, wanted {code}: {run.err or run.out}"
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), run.err
    assert "Traceback" not in run.err
    return lines[0]
