"""The Neo4j adapter's queries: one ``.cypher`` file per query, named after it.

Each file starts with ``//`` comment lines naming the query and its parameters. Values are
always ``$parameters``; the only text ever spliced into a query is a variable-length bound
(an ``int`` clamped to [1, 10] by the domain), through :func:`with_bound`.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

__all__ = ["load", "names", "with_bound"]

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_BOUND = "__MAX_HOPS__"


@cache
def load(name: str) -> str:
    """The text of ``cypher/<name>.cypher`` (comment lines kept; Cypher ignores them)."""
    if not _NAME.match(name):
        raise ValueError(f"not a query name: {name!r}")
    return resources.files(__package__).joinpath(f"{name}.cypher").read_text("utf-8")


def names(prefix: str = "") -> list[str]:
    """Every query name starting with ``prefix``, sorted."""
    found = []
    for entry in resources.files(__package__).iterdir():
        stem, dot, ext = entry.name.rpartition(".")
        if dot and ext == "cypher" and stem.startswith(prefix):
            found.append(stem)
    return sorted(found)


def with_bound(name: str, max_hops: int) -> str:
    """A variable-length query with its upper bound filled in (an int in [1, 10] only)."""
    if isinstance(max_hops, bool) or not isinstance(max_hops, int) or not 1 <= max_hops <= 10:
        raise ValueError(f"a variable-length bound must be an int in [1, 10], got {max_hops!r}")
    text = load(name)
    if _BOUND not in text:
        raise ValueError(f"query {name!r} has no {_BOUND} placeholder")
    return text.replace(_BOUND, str(max_hops))
