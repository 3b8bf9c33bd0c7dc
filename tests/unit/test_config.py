"""Configuration is plain data read in one module (``ryvem.config``): every ``RYVEM_*``
variable is read there, a bad value is one ``InvalidInput`` whatever face reads it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ryvem
from ryvem.backends import REGISTRY
from ryvem.config import BACKEND_NAMES, Settings
from ryvem.errors import InvalidInput

SRC = Path(ryvem.__file__).parent


def test_every_setting_comes_from_the_mapping_it_is_given() -> None:
    s = Settings.from_env(env={
        "RYVEM_BACKEND": " Neo4j ", "RYVEM_DATA_DIR": "/tmp/d", "RYVEM_NEO4J_URI": "bolt://x:1",
        "RYVEM_NEO4J_USER": "u", "RYVEM_NEO4J_PASSWORD": "p", "RYVEM_NEO4J_DATABASE": "db",
        "RYVEM_NEO4J_POOL_SIZE": "20", "RYVEM_EMBEDDING": "off", "RYVEM_EXPORT_DIR": "/tmp/e",
    })
    assert (s.backend, s.data_dir, s.neo4j_uri, s.neo4j_user, s.neo4j_password) == (
        "neo4j", Path("/tmp/d"), "bolt://x:1", "u", "p")
    assert (s.neo4j_database, s.neo4j_pool_size, s.embedding, s.export_dir) == (
        "db", 20, False, Path("/tmp/e"))
    empty = Settings.from_env(env={})
    assert (empty.backend, empty.embedding, empty.export_dir) == ("sqlite", True, None)


@pytest.mark.parametrize(("name", "value", "said"), [
    ("RYVEM_BACKEND", "postgres", "unknown backend 'postgres'"),
    ("RYVEM_EMBEDDING", "maybe", "unknown RYVEM_EMBEDDING 'maybe'"),
])
def test_a_bad_value_is_one_invalid_input_line(name: str, value: str, said: str) -> None:
    with pytest.raises(InvalidInput, match=said):
        Settings.from_env(env={name: value})


def test_the_registry_opens_exactly_the_backends_the_configuration_names() -> None:
    assert tuple(REGISTRY) == BACKEND_NAMES


def test_no_module_but_config_reads_the_environment() -> None:
    """``os.environ`` and ``os.getenv`` appear only in ryvem.config — and in ryvem.gitlog,
    which hands git a copy of the environment without its GIT_ variables."""
    readers = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv"):
                readers.add(path.relative_to(SRC).as_posix())
    assert readers == {"config.py", "gitlog.py"}
