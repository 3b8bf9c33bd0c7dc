"""The application object a face holds: the lazily opened store, and the default-scope rules.

A ``Session`` is what the CLI holds for one invocation and the MCP server for its whole
process, and what a library user opens (``ryvem.backends.open_session``). It owns:

* **the store**, opened on first need and once (thread-safe); a failed open is not
  remembered, so a store that comes up later is picked up without restarting the host;
* **the default scope**: an explicit scope wins (and is validated before the store is
  opened); otherwise the working directory's repository scope from ``ryvem.json``, else
  ``global`` (:mod:`ryvem.application.workspace`); reading never writes anything;
* **writing with the default scope**: :meth:`write` validates the request, then — only when
  it is valid — mints the repository identity (``ryvem.json`` and the ``repo`` node) if this
  is the first write in a git repository, then writes. Concurrent first writes in one process
  mint one identity.

The store comes from a zero-argument opener that the composition root
(:mod:`ryvem.backends`) builds from settings, so this layer never names an adapter.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ryvem.application import workspace
from ryvem.application.service import EdgeView, Service, WriteResult
from ryvem.domain.model import NodeVersion
from ryvem.domain.scopes import GLOBAL, parse_scope
from ryvem.ports import GraphRepository

__all__ = ["Minted", "Session", "Written"]


@dataclass(frozen=True, slots=True)
class Minted:
    """This write gave the repository its identity: the file written and the new scope."""

    identity_file: Path
    scope: str


@dataclass(frozen=True, slots=True)
class Written:
    """What :meth:`Session.write` did."""

    result: WriteResult
    minted: Minted | None = None

    def record(self) -> dict[str, Any]:
        return self.result.version.record()


class Session:
    """One face's handle on ryvem: the store, opened lazily, and the default-scope rules."""

    def __init__(
        self,
        opener: Callable[[], GraphRepository],
        *,
        location: str = "",
        cwd: Path | None = None,
    ) -> None:
        self._opener = opener
        self._repo: GraphRepository | None = None
        self._open_lock = threading.Lock()
        self._mint_lock = threading.Lock()
        self.location = location
        self.cwd = cwd

    # --- the store ------------------------------------------------------------------------
    @property
    def repo(self) -> GraphRepository:
        """The store, opened on first use."""
        with self._open_lock:
            if self._repo is None:
                self._repo = self._opener()
            return self._repo

    def close(self) -> None:
        with self._open_lock:
            if self._repo is not None:
                self._repo.close()
                self._repo = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- scopes ---------------------------------------------------------------------------
    def default_scope(self, *, mint: bool = False) -> str:
        """The working directory's scope (``repo:<uuid>`` from ryvem.json), else ``global``.

        ``mint`` gives the repository its identity on first touch (a writing action only).
        """
        if not mint:
            return workspace.locate(self.cwd).scope
        with self._mint_lock:  # concurrent first writes in this process mint one identity
            return workspace.default_scope(self.repo, mint=True, cwd=self.cwd)

    def service(self, scope: str | None = None, *, mint: bool = False) -> Service:
        """The use cases with ``scope`` as the default (validated before the store opens),
        else the working directory's scope (see :meth:`default_scope`)."""
        chosen = parse_scope(scope) if scope is not None else None
        if chosen is None:
            chosen = self.default_scope(mint=mint)
        return Service(self.repo, default_scope=chosen)

    def everywhere(self) -> Service:
        """The use cases for reads that name their scopes themselves (stats, export)."""
        return Service(self.repo, default_scope=GLOBAL)

    # --- the one write call every face makes ----------------------------------------------
    def write(
        self,
        kind: str,
        title: str,
        *,
        key: str | None = None,
        scope: str | None = None,
        body: str | None = None,
        data: object = None,
        valid_from: object = None,
    ) -> Written:
        """Insert-or-supersede one node (see :meth:`Service.write`), in ``scope`` or the
        default scope; a first write in a git repository without ``ryvem.json`` mints it.
        ``valid_from`` dates it in valid time (default now; see :meth:`Service.prepare`).

        Nothing is written — no ryvem.json, no node — unless the request is valid.
        """
        if scope is not None:
            svc = self.service(scope)
            return Written(svc.write_many([svc.prepare(kind, title, key=key, body=body,
                                                       data=data, valid_from=valid_from)])[0])
        before = workspace.locate(self.cwd)  # a malformed ryvem.json fails here, first
        node = Service(self.repo).prepare(
            kind, title, key=key, body=body, data=data, valid_from=valid_from
        )
        chosen = self.default_scope(mint=True)  # the input is valid: now mint if needed
        result = Service(self.repo, default_scope=chosen).write_many(
            [dataclasses.replace(node, scope=chosen)]
        )[0]
        minted = None
        if (
            before.root is not None
            and before.repo_uuid is None
            and workspace.wrote_identity(before.root)  # not when a racing writer's was adopted
        ):
            after = workspace.locate(self.cwd)
            if after.identity_file is not None:
                minted = Minted(after.identity_file, after.scope)
        return Written(result, minted)

    # --- the other writes, with the default scope (never minting) -------------------------
    def retire(
        self,
        ref: str,
        *,
        reason: str | None = None,
        scope: str | None = None,
        valid_to: object = None,
    ) -> NodeVersion:
        """:meth:`Service.retire` in ``scope`` or the default scope."""
        return self.service(scope).retire(ref, reason=reason, valid_to=valid_to)

    def link(
        self,
        from_ref: str,
        to_ref: str,
        rel: str,
        *,
        data: object = None,
        scope: str | None = None,
        valid_from: object = None,
    ) -> EdgeView:
        """:meth:`Service.link` in ``scope`` or the default scope."""
        return self.service(scope).link(from_ref, to_ref, rel, data=data, valid_from=valid_from)

    def unlink(
        self,
        from_ref: str,
        to_ref: str,
        rel: str,
        *,
        scope: str | None = None,
        valid_to: object = None,
    ) -> EdgeView:
        """:meth:`Service.unlink` in ``scope`` or the default scope."""
        return self.service(scope).unlink(from_ref, to_ref, rel, valid_to=valid_to)
