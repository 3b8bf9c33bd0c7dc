"""Token grants: which scopes a token may read, write and forget (issue 41).

Pure rules only; the store keeps the records. A grant is a tuple of scope patterns in the
shapes every read takes (``global``, ``repo:<uuid>``, ``board:<slug>``, ``repo:*``,
``board:*``, ``*``).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from ryvem.domain.scopes import ScopeFilter, parse_scope_filter

__all__ = ["Grant", "hash_secret", "parse_grant", "secret_matches"]


def parse_grant(text: str | None) -> tuple[ScopeFilter, ...]:
    """``"repo:*,global"`` -> filters; empty or None grants nothing."""
    if not text:
        return ()
    return tuple(parse_scope_filter(part.strip()) for part in text.split(",") if part.strip())


@dataclass(frozen=True, slots=True)
class Grant:
    read: tuple[ScopeFilter, ...] = ()
    write: tuple[ScopeFilter, ...] = ()
    forget: tuple[ScopeFilter, ...] = ()

    def may_read(self, scope: str) -> bool:
        return any(f.matches(scope) for f in self.read)

    def may_write(self, scope: str) -> bool:
        return any(f.matches(scope) for f in self.write)

    def may_forget(self, scope: str) -> bool:
        return any(f.matches(scope) for f in self.forget)


def hash_secret(secret: str) -> str:
    """sha256 hex of a high-entropy secret (no salt needed at that entropy)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def secret_matches(secret: str, stored_hash: str) -> bool:
    """Constant-time comparison of a presented secret with a stored hash."""
    return hmac.compare_digest(hash_secret(secret), stored_hash)
