"""ryvem — a memory graph for coding agents.

Typed nodes and typed edges on two axes, structure and time. Start with
:func:`ryvem.open_session` (docs/reference/library.md)::

    import ryvem

    with ryvem.open_session(db="/tmp/ryvem.db") as session:
        session.write("decision", "Cache in process", key="cache")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["__version__", "open_session"]

if TYPE_CHECKING:
    from ryvem.backends import open_session


def __getattr__(name: str) -> Any:
    # Lazy, so `import ryvem.domain…` does not load the application and the registry.
    if name == "open_session":
        from ryvem.backends import open_session

        return open_session
    raise AttributeError(f"module 'ryvem' has no attribute {name!r}")
