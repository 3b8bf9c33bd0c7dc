"""ryvem — a memory graph for coding agents.

Typed nodes and typed edges on two axes, structure and time. Start with
:class:`ryvem.service.Service` over a repository from :func:`ryvem.repositories.open_repository`.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
