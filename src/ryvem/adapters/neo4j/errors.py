"""The one place Neo4j driver exceptions become :mod:`ryvem.errors`: by status code, then type.

A server error carries a status code (``Neo.ClientError.Schema.ConstraintValidationFailed``);
:data:`BY_CODE` maps codes (or their classification prefix) to ryvem's hierarchy. Errors the
driver raises itself (no server answer: unreachable, bad URI, refused credentials) map by
exception type in :data:`BY_TYPE`. The first match wins; the rest is a ``BackendError``.
Messages are one line and say what to check.
"""

from __future__ import annotations

from collections.abc import Callable

from neo4j import exceptions as nx

from ryvem import errors

__all__ = ["BY_CODE", "BY_TYPE", "DRIVER_ERRORS", "from_driver"]

DRIVER_ERRORS = (nx.Neo4jError, nx.DriverError)
"""What the driver raises; everything else is not the driver's."""

Make = Callable[[str, str], errors.RyvemError]


def _constraint(msg: str, where: str) -> errors.RyvemError:
    # Which invariant: the constrained property named in the server's message.
    if "`ident`" in msg:
        return errors.IntegrityError(
            "the store refused a second current version of one (kind, key, scope)"
        )
    if "`cur`" in msg:
        return errors.IntegrityError("the store refused a second current edge (from, to, rel)")
    return errors.IntegrityError(f"the store refused the write: {msg}")


def _auth(msg: str, where: str) -> errors.RyvemError:
    return errors.BackendUnavailable(
        f"Neo4j at {where} refused the credentials: check RYVEM_NEO4J_USER and "
        "RYVEM_NEO4J_PASSWORD"
    )


def _unreachable(msg: str, where: str) -> errors.RyvemError:
    reason = "connection refused" if "refused" in msg.lower() else msg[:160]
    return errors.BackendUnavailable(
        f"cannot reach Neo4j at {where} ({reason}): is the server running? "
        "(scripts/neo4j-local start, or docker compose -f docker/docker-compose.yml up -d)"
    )


def _no_database(msg: str, where: str) -> errors.RyvemError:
    return errors.BackendUnavailable(f"Neo4j at {where}: {msg} (check RYVEM_NEO4J_DATABASE)")


def _unavailable(msg: str, where: str) -> errors.RyvemError:
    return errors.BackendUnavailable(f"the Neo4j database at {where} is unavailable: {msg}")


def _forbidden(msg: str, where: str) -> errors.RyvemError:
    return errors.StoreReadOnly(f"Neo4j at {where} refused the write: {msg}")


def _transient(msg: str, where: str) -> errors.RyvemError:
    return errors.OperationalError(f"Neo4j at {where} is busy; try again: {msg}")


def _bad_uri(msg: str, where: str) -> errors.RyvemError:
    return errors.InvalidInput(f"cannot use Neo4j URI {where!r}: {msg}")


BY_CODE: tuple[tuple[str, Make], ...] = (
    ("Neo.ClientError.Schema.ConstraintValidationFailed", _constraint),
    ("Neo.ClientError.Security.Unauthorized", _auth),
    ("Neo.ClientError.Security.AuthenticationRateLimit", _auth),
    ("Neo.ClientError.Database.DatabaseNotFound", _no_database),
    ("Neo.TransientError.General.DatabaseUnavailable", _unavailable),
    ("Neo.ClientError.General.ForbiddenOnReadOnlyDatabase", _forbidden),
    ("Neo.ClientError.Security.Forbidden", _forbidden),
    ("Neo.TransientError.General.OutOfMemoryError", _transient),
    ("Neo.TransientError.", _transient),  # deadlocks, lock timeouts, leader switches
)
"""Status code (or prefix ending in '.') → the ryvem error it means; first match wins."""

BY_TYPE: tuple[tuple[type[Exception], Make], ...] = (
    (nx.AuthError, _auth),
    (nx.ServiceUnavailable, _unreachable),
    (nx.SessionExpired, _unreachable),
    (nx.ConnectionAcquisitionTimeoutError, _unreachable),
    (nx.ConfigurationError, _bad_uri),
    (ValueError, _bad_uri),  # the driver rejects a malformed URI with ValueError
)
"""Driver-side exception type → the ryvem error it means (no server status code)."""


def _by_code(code: str) -> Make | None:
    for key, make in BY_CODE:
        if code == key or (key.endswith(".") and code.startswith(key)):
            return make
    return None


def from_driver(exc: Exception, where: str) -> errors.RyvemError:
    """The ryvem error for a driver exception (use as ``raise from_driver(e, uri) from e``)."""
    msg = " ".join(str(getattr(exc, "message", None) or exc).split())
    code = getattr(exc, "code", None)
    if isinstance(exc, nx.Neo4jError) and isinstance(code, str):
        make = _by_code(code)
        if make is not None:
            return make(msg, where)
    for kind, make in BY_TYPE:
        if isinstance(exc, kind):
            return make(msg, where)
    return errors.BackendError(f"Neo4j at {where}: {msg}")
