"""The contract suite on SQLite: one file per test, in the test's own folder."""

from __future__ import annotations

from ryvem.adapters.sqlite import SqliteRepository
from ryvem.ports import GraphRepository

from . import ProjectContract


class TestSqliteContract(ProjectContract):
    def make_repository(self) -> GraphRepository:
        return SqliteRepository.open(self.tmp_path / "ryvem.db")

    def open_another(self) -> GraphRepository:
        return SqliteRepository.open(self.tmp_path / "ryvem.db")
