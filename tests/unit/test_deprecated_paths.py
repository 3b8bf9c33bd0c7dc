"""The import paths the README documented before 0.2 still work, and warn."""

from __future__ import annotations

import importlib
import sys

import pytest

MOVED = [
    ("ryvem.service", "ryvem.application.service", "Service"),
    ("ryvem.vault", "ryvem.application.vault", "import_vault"),
    ("ryvem.copy", "ryvem.application.copy", "copy_graph"),
    ("ryvem.workspace", "ryvem.application.workspace", "default_scope"),
    ("ryvem.repositories.port", "ryvem.ports", "GraphRepository"),
    ("ryvem.repositories.sqlite", "ryvem.adapters.sqlite", "SqliteRepository"),
    ("ryvem.repositories.neo4j", "ryvem.adapters.neo4j", "Neo4jRepository"),
    ("ryvem.repositories", "ryvem.backends", "open_repository"),
]


@pytest.mark.parametrize("old, new, name", MOVED)
def test_an_old_import_path_gives_the_same_object_with_a_deprecation_warning(
    old: str, new: str, name: str
) -> None:
    """`from ryvem.service import Service` keeps working and says where it moved."""
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to"):
        module = importlib.import_module(old)
    assert getattr(module, name) is getattr(importlib.import_module(new), name)


def test_the_old_backend_list_is_the_registry() -> None:
    """ryvem.settings.BACKENDS still answers, from the one registry."""
    import ryvem.settings
    from ryvem.backends import BACKEND_NAMES

    with pytest.warns(DeprecationWarning, match="BACKEND_NAMES"):
        assert ryvem.settings.BACKENDS == BACKEND_NAMES  # type: ignore[attr-defined]  # the deprecated module attribute
