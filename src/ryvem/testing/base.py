"""The base every contract topic class builds on: the two hooks and the fixtures over them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import pytest

from ryvem.application.service import Service
from ryvem.ports import GraphRepository


@pytest.mark.contract
class ContractBase:
    """What a backend provides (``make_repository``, ``open_another``) and what the suite
    gives every test (``self.tmp_path``, ``self.request``, the ``repo`` and ``service``
    fixtures). Not named ``Test*``: pytest collects only the backend's subclass."""

    tmp_path: Path
    request: pytest.FixtureRequest

    # --- the hooks a backend implements ---------------------------------------------------
    def make_repository(self) -> GraphRepository:
        """An empty store of this backend, open. Files go under ``self.tmp_path`` (the suite
        points it at a fresh folder when a test needs a second, independent store); a
        server-backed store is emptied before it is returned."""
        raise NotImplementedError(f"{type(self).__name__} must implement make_repository()")

    def open_another(self) -> GraphRepository:
        """A second, independent handle on the store the ``repo`` fixture holds (for SQLite
        the same file, for a server the same server), without emptying it. Called from
        worker threads, one handle per thread, each closed by its caller."""
        raise NotImplementedError(f"{type(self).__name__} must implement open_another()")

    def unavailable(self, reason: str) -> NoReturn:
        """A tool a test needs is missing here (the local embedding model): skipped by
        default; a CI that must run everything overrides this to fail instead."""
        pytest.skip(reason)

    # --- what the suite provides ----------------------------------------------------------
    @pytest.fixture(autouse=True)
    def _contract_context(self, request: pytest.FixtureRequest, tmp_path: Path) -> None:
        """Give the hooks their context: the test's own folder and its fixture request (a
        server-backed subclass can ``self.request.getfixturevalue(...)`` its server)."""
        self.request = request
        self.tmp_path = tmp_path

    @pytest.fixture
    def repo(self, _contract_context: None) -> Iterator[GraphRepository]:
        """An empty repository of the backend under test, closed after the test."""
        r = self.make_repository()
        try:
            yield r
        finally:
            r.close()

    @pytest.fixture
    def service(self, repo: GraphRepository) -> Service:
        """A service over an empty repository, default scope ``global``."""
        return Service(repo)

    @contextmanager
    def fresh_repository(self, name: str) -> Iterator[GraphRepository]:
        """A new, empty store made by ``make_repository()`` in its own folder
        ``self.tmp_path / name``, closed on exit. A server-backed backend empties its server
        for it, so a test must be done with any earlier store of that backend first."""
        where = self.tmp_path / name
        where.mkdir()
        home = self.tmp_path
        self.tmp_path = where
        try:
            r = self.make_repository()
        finally:
            self.tmp_path = home
        try:
            yield r
        finally:
            r.close()
