"""Fixtures shared by every test: backends, a service over them, and the Neo4j server policy.

The contract suite (``tests/contract``) does not use the ``repo``/``service`` fixtures here: each
backend's subclass of ``ryvem.testing.RepositoryContract`` brings its own (see
``src/ryvem/testing/__init__.py``). The two-backend ``repo`` below is for the other tests
that run on both backends (the vault import).

Neo4j is found, in order: ``RYVEM_TEST_NEO4J_URI`` (+ ``_USER``/``_PASSWORD``); else a
testcontainers ``neo4j:5`` container when a Docker engine answers; else the neo4j cases are
skipped with a reason, except under ``CI=true`` where a missing Neo4j fails the run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

from backends import Neo4jServer, open_empty_neo4j, open_sqlite
from ryvem.adapters.neo4j import Neo4jRepository
from ryvem.adapters.sqlite import SqliteRepository
from ryvem.application.service import Service
from ryvem.backends import BACKEND_NAMES
from ryvem.ports import GraphRepository

IN_CI = os.environ.get("CI") == "true"


def unavailable(reason: str) -> NoReturn:
    """Skip a test whose tool is missing here; under ``CI=true`` fail it instead."""
    if IN_CI:
        pytest.fail(f"{reason} (required under CI=true)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def local_model() -> None:
    """The local embedding model must load: else the test is unavailable (a failure under
    CI=true). Use as ``pytestmark = pytest.mark.usefixtures("local_model")``."""
    from ryvem.embedding import probe

    reason = probe()
    if reason is not None:
        unavailable(reason)


def _docker_answers() -> bool:
    try:
        import docker  # type: ignore[import-untyped]

        docker.from_env(timeout=3).ping()
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def neo4j_server() -> Iterator[Neo4jServer]:
    """A real Neo4j server for the whole session (see the module docstring)."""
    uri = os.environ.get("RYVEM_TEST_NEO4J_URI")
    if uri:
        yield Neo4jServer(
            uri,
            os.environ.get("RYVEM_TEST_NEO4J_USER", "neo4j"),
            os.environ.get("RYVEM_TEST_NEO4J_PASSWORD", ""),
        )
        return
    if _docker_answers():
        from testcontainers.neo4j import Neo4jContainer

        with Neo4jContainer("neo4j:5") as container:
            yield Neo4jServer(
                container.get_connection_url(), "neo4j", container.password
            )
        return
    reason = (
        "no Neo4j server: set RYVEM_TEST_NEO4J_URI, run `scripts/neo4j-local start`, "
        "or have a Docker engine for testcontainers"
    )
    unavailable(reason)


@pytest.fixture(params=BACKEND_NAMES)
def repo(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GraphRepository]:
    """An empty repository, once per backend (for tests outside the contract suite)."""
    r: GraphRepository = (
        open_sqlite(tmp_path)
        if request.param == "sqlite"
        else open_empty_neo4j(request.getfixturevalue("neo4j_server"))
    )
    try:
        yield r
    finally:
        r.close()


@pytest.fixture
def service(repo: GraphRepository) -> Service:
    """A service over an empty repository, default scope ``global``."""
    return Service(repo)


@pytest.fixture
def neo(neo4j_server: Neo4jServer) -> Iterator[Neo4jRepository]:
    """An empty Neo4j repository on the session's server (for Neo4j-only tests)."""
    r = open_empty_neo4j(neo4j_server)
    try:
        yield r
    finally:
        r.close()


@pytest.fixture
def sqlite_repo(tmp_path: Path) -> Iterator[SqliteRepository]:
    """An empty SQLite repository (for SQLite-only tests)."""
    r = open_sqlite(tmp_path)
    try:
        yield r
    finally:
        r.close()


def pytest_collection_modifyitems(config: Any, items: list[pytest.Item]) -> None:
    """Everything under tests/contract is marked ``contract`` (the suite's classes also carry
    the mark themselves, so a backend's subclass kept elsewhere is marked too)."""
    for item in items:
        if "contract" in str(item.fspath):
            item.add_marker(pytest.mark.contract)
