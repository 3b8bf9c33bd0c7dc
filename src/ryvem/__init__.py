"""ryvem — a memory graph for coding agents.

Typed nodes and typed edges on two axes, structure and time. Start with
:class:`ryvem.application.session.Session` (see the README's library section).
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
