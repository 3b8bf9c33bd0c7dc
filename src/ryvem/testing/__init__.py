"""The repository contract: one suite of tests every ``GraphRepository`` backend must pass,
shipped with ryvem (``pip install 'ryvem[testing]'``: pytest and Hypothesis) so a backend
written outside this repository runs the very suite SQLite and Neo4j pass.

Adding a backend: subclass ``RepositoryContract`` in a module pytest collects (a ``test_*.py``,
the class named ``Test*``), implement ``make_repository()`` and ``open_another()``, and the
backend is done when the suite passes::

    # tests/test_my_backend.py
    from ryvem.testing import RepositoryContract

    class TestSqliteContract(RepositoryContract):
        def make_repository(self) -> GraphRepository:
            return SqliteRepository.open(self.tmp_path / "ryvem.db")

        def open_another(self) -> GraphRepository:
            return SqliteRepository.open(self.tmp_path / "ryvem.db")

The hooks:

``make_repository()``
    Return an open, *empty* store of the backend. Keep its files under ``self.tmp_path`` (a
    folder of the test's own; the suite points it at a fresh sub-folder when a test needs
    another independent store, e.g. one per Hypothesis example or the far end of a copy). A
    server-backed store empties its database before returning it, so it may be called more
    than once in a test; each call may discard what the previous store held. ``self.request``
    is the test's ``pytest.FixtureRequest``: fetch a server fixture with
    ``self.request.getfixturevalue("neo4j_server")`` (a skip there skips the test).

``open_another()``
    Return a second, independent handle on the *same* store as the ``repo`` fixture's (the
    same SQLite file, the same Neo4j database), without emptying it. The concurrency tests
    call it from worker threads, one handle per thread, and close what they open.

What the suite gives every test: the fixtures ``repo`` (``make_repository()``, closed after
the test) and ``service`` (a ``Service`` over it, default scope ``global``), plus
``self.tmp_path`` and ``self.request``. Every class carries the ``contract`` mark (ryvem's
pytest plugin registers it, so ``--strict-markers`` needs nothing more). A test whose tool is
missing (the local embedding model) calls ``self.unavailable(reason)``: a skip, unless your
subclass overrides it to fail (this project's CI does).

The topics, one module and one base class each (none named ``Test*``, so pytest collects only
a backend's subclass): ``nodes``, ``edges``, ``scopes``, ``search``, ``traversal``, ``links``,
``properties`` (Hypothesis), ``stats``, ``clocks`` (valid and system time), ``concurrency``
(writers on their own handles), ``copying`` (the round trip through SQLite) and
``forgetting`` (redact, purge, the audit). A topic class can be subclassed alone too, to run
one topic while a backend is being written; the backend is done when ``RepositoryContract``
passes.
"""

from __future__ import annotations

from .base import ContractBase
from .clocks import ClocksContract
from .concurrency import ConcurrencyContract
from .copying import CopyingContract
from .edges import EdgesContract
from .forgetting import ForgettingContract
from .links import LinksContract
from .nodes import NodesContract
from .properties import PropertiesContract
from .scopes import ScopesContract
from .search import SearchContract
from .stats import StatsContract
from .traversal import TraversalContract
from .vectors import SearchModesContract, VectorsContract

__all__ = [
    "ClocksContract",
    "ConcurrencyContract",
    "ContractBase",
    "CopyingContract",
    "EdgesContract",
    "ForgettingContract",
    "LinksContract",
    "NodesContract",
    "PropertiesContract",
    "RepositoryContract",
    "ScopesContract",
    "SearchContract",
    "SearchModesContract",
    "StatsContract",
    "TraversalContract",
    "VectorsContract",
]


class RepositoryContract(
    NodesContract,
    EdgesContract,
    ScopesContract,
    SearchContract,
    TraversalContract,
    LinksContract,
    PropertiesContract,
    StatsContract,
    ClocksContract,
    ConcurrencyContract,
    CopyingContract,
    VectorsContract,
    SearchModesContract,
    ForgettingContract,
):
    """Every topic of the contract; a backend subclasses this and implements the hooks."""
