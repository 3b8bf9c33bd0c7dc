"""Writing one regular file atomically, never through or over a symlink or special file.

:func:`write_atomic` is the only way ryvem writes a file a caller named (the HTML export).
The rules, checked on the path itself (``lstat``, so a symlink is seen as one):

* a **symbolic link** is refused, whatever it points to: ryvem never writes through a link
  (the target could be any file the user can write, chosen by whoever planted the link) and
  never replaces one (``--out /dev/stdout`` must not replace the system's link). Give the
  link's target instead;
* a **folder**, **device**, FIFO or socket is refused;
* an existing file is replaced only when it is empty or a page ryvem wrote (it starts
  ``<!DOCTYPE html>`` and its first kilobyte holds the page's ``generator`` mark,
  :data:`OWN_MARK`), and not when its owner made it read-only (no write bit): ``--out``
  naming the store's own database, a note or any other file of the user's is refused, never
  replaced (a sweep replaced a store with a page that way, exit 0);
* a missing file or an existing regular file is written as a temporary file beside it
  (``O_EXCL``; mode 0600 for a new file, since a page holds every body of the store, which
  is 0600 too, and the replaced file's own mode otherwise), flushed, and renamed over the
  path, so
  a reader sees the old file or the new one, never half of either. ``rename`` replaces the
  directory entry itself: a symlink that appears at the path meanwhile is replaced, never
  followed.

A refusal is :class:`~ryvem.errors.InvalidInput` (exit 2); a file system that refuses the
write (no such folder, read-only, permission, disk full) is one :class:`RyvemError` line.

:func:`read_inside` is the other direction (the vault import): it reads a file only when it
is a regular file inside a given root, so a planted symlink cannot read ``/etc/passwd``.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from ryvem.errors import InvalidInput, RyvemError

__all__ = [
    "OWN_MARK", "OutsideRoot", "TooLarge", "check_target", "is_own_page", "read_inside",
    "write_atomic",
]

OWN_MARK = b'<meta name="generator" content="ryvem graph export">'
"""What every page ryvem writes carries in its first kilobyte (the page template's head)."""
_HEAD = 1024
_PAGE_START = b"<!DOCTYPE html>"  # how every page ryvem writes begins (a note quoting the
# mark is not a page: the mark must be in the head of a file that starts as one)


def check_target(path: Path, own: bytes | None = OWN_MARK) -> None:
    """Refuse a path that is not a missing file, an empty file, or a file ``own`` marks as
    one ryvem wrote (``own=None``: any regular file)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise RyvemError(f"cannot write {path}: {e.strerror or e}") from None
    mode = st.st_mode
    if stat.S_ISLNK(mode):
        raise InvalidInput(
            f"{path} is a symbolic link; ryvem never writes through or over a link "
            "(give the path of a regular file)"
        )
    if stat.S_ISDIR(mode):
        raise InvalidInput(f"{path} is a folder; give the path of a file to write")
    if not stat.S_ISREG(mode):
        raise InvalidInput(
            f"{path} is a device or special file; give the path of a regular file"
        )
    if own is None:
        return
    if not mode & 0o222:  # made read-only by its owner (rename would replace it anyway)
        raise InvalidInput(
            f"{path} is read-only (mode {stat.S_IMODE(mode):04o}); ryvem does not replace a "
            "file made read-only: give a new path, or make it writable first"
        )
    if st.st_size == 0:
        return
    try:
        with open(path, "rb") as f:
            head = f.read(_HEAD)
    except OSError as e:
        raise RyvemError(f"cannot read {path}: {e.strerror or e}") from None
    if not is_own_page(head, own):
        raise InvalidInput(
            f"{path} exists and is not a page ryvem exported; ryvem never replaces another "
            "file (give a new path, or move that file away first)"
        )


def is_own_page(data: bytes, own: bytes = OWN_MARK) -> bool:
    """Whether a file's bytes (its first kilobyte is enough) are a page ryvem wrote: it
    starts as one and its head carries ``own``."""
    return data.startswith(_PAGE_START) and own in data[:_HEAD]


def _mode_to_keep(path: Path) -> int:
    """The mode a written file gets: the one it replaces has (it used to become 0644 under
    a 022 umask: a 0600 page made world-readable), else 0600."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o600


def write_atomic(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically under the rules above; the absolute path."""
    path = Path(path).absolute()
    check_target(path)
    folder = path.parent
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as e:
        raise RyvemError(
            f"cannot write {path}: cannot create a file in {folder} ({e.strerror or e})"
        ) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _mode_to_keep(path))  # a replaced file's readers stay who they were
        check_target(path)  # a link or folder planted meanwhile is still refused
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise RyvemError(f"cannot write {path}: {e.strerror or e}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return folder.resolve() / path.name


class OutsideRoot(OSError):
    """A symlinked file whose target is not a file inside the root."""


class TooLarge(OSError):
    """A file over the byte limit given to :func:`read_inside` (not read past it)."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"is {size} bytes or more, over the limit of {limit}")
        self.size = size
        self.limit = limit


def read_inside(path: Path, root: Path, limit: int | None = None) -> bytes:
    """The bytes of ``path`` when it is a regular file inside ``root``; else OSError.

    A symlink is followed only when its target (fully resolved) lies inside ``root``
    (resolved); one pointing out of it, e.g. to ``/etc/passwd`` or ``~/.ssh``, or nowhere,
    raises :class:`OutsideRoot`. The file is opened with ``O_NOFOLLOW`` and checked with
    ``fstat`` on the open descriptor, so a link swapped in after the check is not followed
    and a FIFO or device is never read (``O_NONBLOCK``: opening a FIFO does not wait).
    With ``limit``, at most ``limit + 1`` bytes are read: a larger file raises
    :class:`TooLarge`, so a huge (or growing) file never fills the memory.
    """
    target = Path(path)
    if os.path.islink(path):
        real = Path(os.path.realpath(path))
        base = Path(os.path.realpath(root))
        if not real.is_relative_to(base) or real == base:
            raise OutsideRoot("is a symlink to a file outside the vault; skipped")
        target = real
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    with os.fdopen(os.open(target, flags), "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise OSError("not a regular file")
        if limit is None:
            return f.read()
        if st.st_size > limit:
            raise TooLarge(st.st_size, limit)
        data = f.read(limit + 1)  # it may have grown since fstat
        if len(data) > limit:
            raise TooLarge(len(data), limit)
        return data
