"""Which scope a command means by default: this git repository's identity, else ``global``.

A git working tree is found by walking up from the working directory to the first folder
holding ``.git`` (a directory, or a file in worktrees and submodules); no ``git`` process
runs. The repository's identity lives in ``ryvem.json`` at that folder::

    {
      "repo": "3f2b9c0e-8d7a-4c1e-9b5a-2e4f6a8c0d1b"
    }

``repo`` is a lowercase uuid4 and the default scope is ``repo:<uuid>``. Other keys are
ignored (room for later fields). The file is meant to be committed, so the identity survives a
database reset or a fresh clone. It is written once, when a writing command first needs it
(``mint``), and never rewritten; a malformed file is an :class:`InvalidInput`, never replaced.
Until it exists, and outside a git tree, the default scope is ``global``.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ryvem.application.service import Service
from ryvem.domain.scopes import GLOBAL, parse_scope
from ryvem.errors import BackendError, InvalidInput
from ryvem.ports import GraphRepository

__all__ = [
    "IDENTITY_FILE",
    "Workspace",
    "default_scope",
    "find_git_root",
    "locate",
    "mint",
    "wrote_identity",
]

IDENTITY_FILE = "ryvem.json"


@dataclass(frozen=True, slots=True)
class Workspace:
    """Where a command runs: the git working tree root (if any) and its repository uuid."""

    root: Path | None
    repo_uuid: str | None

    @property
    def identity_file(self) -> Path | None:
        return None if self.root is None else self.root / IDENTITY_FILE

    @property
    def scope(self) -> str:
        return GLOBAL if self.repo_uuid is None else f"repo:{self.repo_uuid}"


def find_git_root(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` that holds ``.git`` (dir or file), or None."""
    here = start.absolute()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return None


_MAX_IDENTITY_BYTES = 1024 * 1024  # {"repo": "<uuid>"} and room for later keys


def read_identity(path: Path) -> str | None:
    """The uuid in a ``ryvem.json``; None when the file does not exist. Never writes.

    Only a regular file is read, and at most :data:`_MAX_IDENTITY_BYTES` of it: a cloned
    repository may hold ``ryvem.json -> /dev/zero``, or a FIFO may sit there, and no
    command may read forever or wait for a writer because of it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens without a writer
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise InvalidInput(
                    f"{path} is not a regular file; ryvem.json must hold "
                    '{"repo": "<uuid>"} (delete it to mint a new identity)'
                )
            raw = f.read(_MAX_IDENTITY_BYTES + 1)
        if len(raw) > _MAX_IDENTITY_BYTES:
            raise _malformed(path, f"it is larger than {_MAX_IDENTITY_BYTES} bytes")
    except FileNotFoundError:
        if path.is_symlink():  # a dangling link: minting could never place the file
            raise InvalidInput(
                f"{path} is a symbolic link to a missing file; fix the link or delete it "
                "to mint a new identity"
            ) from None
        return None
    except OSError as e:
        raise InvalidInput(f"cannot read {path}: {e.strerror or e}") from None
    try:
        value = json.loads(raw.decode("utf-8-sig"))  # an editor's byte-order mark is fine
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _malformed(path, "it is not valid UTF-8 JSON") from None
    if not isinstance(value, dict):
        raise _malformed(path, "it is not a JSON object")
    repo = value.get("repo")
    if not isinstance(repo, str):
        raise _malformed(path, 'it has no "repo" string')
    try:
        parsed = uuid.UUID(repo)
    except ValueError:
        raise _malformed(path, f'"repo" is not a uuid: {repo[:40]!r}') from None
    if str(parsed) != repo.lower():
        raise _malformed(path, f'"repo" is not a uuid: {repo[:40]!r}')
    return str(parsed)


def _malformed(path: Path, why: str) -> InvalidInput:
    return InvalidInput(
        f'{path} is malformed: {why}; expected {{"repo": "<uuid>"}} '
        "(ryvem never rewrites it: fix it, or delete it to mint a new identity)"
    )


@dataclass(frozen=True, slots=True)
class Minted:
    """A write gave the repository its identity: the file written and the new scope."""

    identity_file: Path
    scope: str


def minted_since(before: Workspace, cwd: Path | None = None) -> Minted | None:
    """The identity this process wrote since ``before`` was read — not one a racing writer
    wrote and this process adopted — else None. What a face says once ("this repository is
    now …; commit ryvem.json")."""
    if before.root is None or before.repo_uuid is not None or not wrote_identity(before.root):
        return None
    after = locate(cwd)
    if after.identity_file is None:
        return None
    return Minted(after.identity_file, after.scope)


def may_mint_for(vault: Path, cwd: Path | None = None) -> bool:
    """Whether importing ``vault`` may mint the repository identity: only in a git repository
    whose ``ryvem.json`` would land outside the vault (a vault is only ever read)."""
    root = locate(cwd).root
    if root is None:
        return False
    try:
        root.resolve().relative_to(vault.resolve())
    except ValueError:
        return True
    return False  # the git root is the vault or inside it: never write into it


def locate(cwd: Path | None = None) -> Workspace:
    """The workspace of ``cwd`` (default: the working directory). Never writes."""
    root = find_git_root(Path.cwd() if cwd is None else cwd)
    if root is None:
        return Workspace(None, None)
    return Workspace(root, read_identity(root / IDENTITY_FILE))


def mint(root: Path, service: Service) -> str:
    """Give the repository at ``root`` an identity: write ``ryvem.json`` once, record the node.

    The file is prepared as a temporary file first (so an unwritable folder fails before the
    store is touched), the ``repo`` node is recorded, and the file is then hard-linked into
    place, which never replaces an existing file. Minters on one machine take an exclusive
    ``flock`` on the repository's folder for those steps, so a second one finds the first's
    file and adopts it; should another machine's process (a shared folder) win anyway, its
    identity wins and is returned, leaving one unused ``repo`` node behind.
    """
    final = root / IDENTITY_FILE
    new = str(uuid.uuid4())
    content = (json.dumps({"repo": new}, indent=2) + "\n").encode("utf-8")
    tmp = root / f".{IDENTITY_FILE}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as e:
        raise BackendError(f"cannot write {final}: {e.strerror or e}") from None
    try:
        try:
            os.write(fd, content)
            os.fsync(fd)
        finally:
            os.close(fd)
        with _folder_lock(root):
            return _record_and_place(root, final, tmp, new, content, service)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


@contextlib.contextmanager
def _folder_lock(root: Path) -> Iterator[None]:
    """An exclusive flock on the folder itself (no lock file is left in the repository)."""
    try:
        dfd = os.open(root, os.O_RDONLY)
    except OSError:  # cannot open the folder for locking: fall back to the no-overwrite link
        yield
        return
    try:
        fcntl.flock(dfd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(dfd)  # closing releases the lock


def _record_and_place(
    root: Path, final: Path, tmp: Path, new: str, content: bytes, service: Service
) -> str:
    """Adopt an identity minted meanwhile, or record ours and link the file into place."""
    existing = read_identity(final)  # written by another process since we looked?
    if existing is not None:
        service.ensure_repo_node(existing, root.name)
        return existing
    service.ensure_repo_node(new, root.name)
    try:
        os.link(tmp, final)
        _written.add(final)
    except FileExistsError:
        winner = read_identity(final)
        if winner is None:  # pragma: no cover - removed again between two syscalls
            raise BackendError(f"{final} appeared and vanished; try again") from None
        service.ensure_repo_node(winner, root.name)
        return winner
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise BackendError(f"cannot write {final}: {e.strerror or e}") from None
        _write_exclusive(final, content)  # no hard links here: O_EXCL is still no-overwrite
        _written.add(final)
    return new


_written: set[Path] = set()


def wrote_identity(root: Path) -> bool:
    """Whether this process wrote ``root``'s ryvem.json (a racing writer's file was adopted
    otherwise), so only the process that wrote it says so."""
    return root / IDENTITY_FILE in _written


def _write_exclusive(path: Path, content: bytes) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as e:
        raise BackendError(f"cannot write {path}: {e.strerror or e}") from None
    try:
        os.write(fd, content)
        os.fsync(fd)
    finally:
        os.close(fd)


def default_scope(repo: GraphRepository, *, mint: bool = False, cwd: Path | None = None) -> str:
    """The default scope for a command run in ``cwd``.

    Reading commands (``mint=False``) never write: inside a git tree without ``ryvem.json``
    they read ``global``. Writing commands (``mint=True``) mint the identity on first touch
    and make sure the ``repo`` node exists (it is recreated after a database reset).
    """
    ws = locate(cwd)
    if ws.root is None or not mint:
        return ws.scope
    service = Service(repo)
    if ws.repo_uuid is None:
        return parse_scope(f"repo:{_mint(ws.root, service)}")
    service.ensure_repo_node(ws.repo_uuid, ws.root.name)
    return ws.scope


_mint = mint  # `mint` is also default_scope's flag
