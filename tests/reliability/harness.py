"""Spawning worker processes (worker.py) and reading what they report."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ryvem.repositories.sqlite import SqliteRepository
from ryvem.service import Service

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
