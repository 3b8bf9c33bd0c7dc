"""The contract suite ships as ``ryvem.testing``: a backend written outside this repository
runs it with one subclass, under --strict-markers, with no configuration of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

OUTSIDE = '''
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.ports import GraphRepository
from ryvem.testing import NodesContract, ScopesContract


class TestMyBackend(NodesContract, ScopesContract):
    def make_repository(self) -> GraphRepository:
        return SqliteRepository.open(self.tmp_path / "mine.db")

    def open_another(self) -> GraphRepository:
        return SqliteRepository.open(self.tmp_path / "mine.db")
'''


def test_a_project_outside_this_repository_runs_the_shipped_suite_with_one_subclass(
    tmp_path: Path,
) -> None:
    (tmp_path / "test_my_backend.py").write_text(OUTSIDE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RYVEM_", "PYTEST_"))}
    p = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--strict-markers", "-p", "no:cacheprovider",
         "-m", "contract", "test_my_backend.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    summary = p.stdout.strip().splitlines()[-1]
    passed = int(summary.split(" passed")[0].split()[-1])
    assert passed >= 20 and "failed" not in summary and "error" not in summary


def test_a_subclass_missing_a_hook_is_told_which_one(tmp_path: Path) -> None:
    (tmp_path / "test_half.py").write_text(
        "from ryvem.testing import NodesContract\n\n\nclass TestHalf(NodesContract):\n"
        "    pass\n", encoding="utf-8",
    )
    p = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "test_half.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )
    assert p.returncode == 1
    assert "TestHalf must implement make_repository()" in p.stdout
