"""A library ``Session`` validates a request before it opens its store.

The store's opener here fails the test if it is called: every refused request below must
be refused from its arguments alone, so a fresh data dir never gets an empty store file
(the CLI's behaviour, ``tests/integration/test_cli_nodes.py``, rests on this).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ryvem.application.session import Session
from ryvem.errors import InvalidInput
from ryvem.ports import GraphRepository


def _never_opened() -> GraphRepository:
    raise AssertionError("the store was opened for a request that is refused")


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.write("decision", "t", valid_from="not a date"),
        lambda s: s.write("decision", "t", scope="global", valid_from="not a date"),
        lambda s: s.write("decision", "t", valid_from="2999-01-01"),
        lambda s: s.retire("decision/x", valid_to="not a date"),
        lambda s: s.link("a", "b", "about", valid_from="not a date"),
        lambda s: s.link("a", "", "about"),
        lambda s: s.unlink("a", "b", "about", valid_to="not a date"),
        lambda s: s.service().redact("long enough text", scope="global", all_scopes=True),
        lambda s: s.service().get("x", as_of="not a date"),
        lambda s: s.service().traverse("x", as_of="not a date"),
        lambda s: s.search("x", as_of="not a date"),
        lambda s: s.import_folder(""),
        lambda s: s.import_folder("/nonexistent/vault"),
        lambda s: s.import_folder(".", kind="Not A Kind"),
        lambda s: s.import_folder(".", title_from="path"),
    ],
    ids=[
        "write-bad-valid-from", "write-scoped-bad-valid-from", "write-future-valid-from",
        "retire-bad-valid-to", "link-bad-valid-from", "link-empty-ref",
        "unlink-bad-valid-to", "redact-scope-and-all-scopes", "get-bad-as-of",
        "traverse-bad-as-of", "search-bad-as-of", "import-empty-dir", "import-missing-dir",
        "import-bad-kind", "import-bad-title-from",
    ],
)
def test_a_session_refuses_bad_input_before_it_opens_its_store(
    tmp_path: Path, call: Callable[[Session], Any]
) -> None:
    """Bad input is an InvalidInput raised before the opener is ever called."""
    with Session(_never_opened, cwd=tmp_path) as session, pytest.raises(InvalidInput):
        call(session)


def test_a_service_serves_the_store_it_is_given_and_one_set_on_it_later(tmp_path: Path) -> None:
    from ryvem.adapters.sqlite import SqliteRepository
    from ryvem.application.service import Service

    first = SqliteRepository.open(tmp_path / "a.db")
    second = SqliteRepository.open(tmp_path / "b.db")
    try:
        svc = Service(first)
        svc.write("decision", "in the first store", key="one")
        svc.repo = second  # a plain attribute before the store opened lazily: still settable
        svc.write("decision", "in the second store", key="two")
        assert [h.title for h in Service(first).search("store", all_scopes=True)] == [
            "in the first store"]
        assert [h.title for h in Service(second).search("store", all_scopes=True)] == [
            "in the second store"]
        with pytest.raises(TypeError):
            Service()
    finally:
        first.close()
        second.close()
