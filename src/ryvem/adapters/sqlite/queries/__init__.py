"""The SQLite adapter's queries: one ``.sql`` file per query, named after it (as the Neo4j
adapter's ``.cypher`` files are).

Each file starts with ``--`` comment lines naming the query and its parameters. Values are
always named parameters (``:name``). The only text ever filled into a query is a fixed
fragment chosen by the adapter from a closed vocabulary — the column lists derived from the
domain model, and "valid now / valid at :as_of", scope, kind and rel filters, each a constant
string with its own parameters — never a value (:func:`render`).

Migrations are the files ``migration_NNN_*.sql``, applied in order; ``PRAGMA user_version``
records how many a file has had.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

__all__ = ["load", "migrations", "names", "render"]

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_SLOT = re.compile(r"\{([a-z_]+)\}")


@cache
def load(name: str) -> str:
    """The text of ``queries/<name>.sql`` without its leading ``--`` comment lines (its doc)."""
    if not _NAME.match(name):
        raise ValueError(f"not a query name: {name!r}")
    lines = resources.files(__package__).joinpath(f"{name}.sql").read_text("utf-8").splitlines()
    while lines and lines[0].startswith("--"):
        lines.pop(0)
    return "\n".join(lines).strip() + "\n"


def names(prefix: str = "") -> list[str]:
    """Every query name starting with ``prefix``, sorted."""
    found = []
    for entry in resources.files(__package__).iterdir():
        stem, dot, ext = entry.name.rpartition(".")
        if dot and ext == "sql" and stem.startswith(prefix):
            found.append(stem)
    return sorted(found)


def migrations() -> tuple[str, ...]:
    """The schema's migrations in order: ``migrations()[i]`` takes user_version i to i + 1."""
    return tuple(load(n) for n in names("migration_"))


@cache
def render(name: str, fragments: tuple[tuple[str, str], ...]) -> str:
    """A query with its ``{slot}`` s filled from ``fragments`` (every slot must be given).

    Cached per (query, fragments): the adapter's fragments are a small closed set.
    """
    given = dict(fragments)

    def fill(m: re.Match[str]) -> str:
        try:
            return given[m.group(1)]
        except KeyError:
            raise ValueError(f"query {name!r} needs the fragment {m.group(1)!r}") from None

    return _SLOT.sub(fill, load(name))
