"""The ``ryvem-mcp`` console script: its arguments (argparse), then the stdio server.

``ryvem-mcp [--allow-purge] [--export-dir DIR]`` serves the memory tools over stdio, in any
order of its options; ``ryvem-mcp graph …`` runs ``ryvem graph …`` (so an MCP host's own
command line can export or import); ``--version`` and ``--help`` answer and exit. A server
option given with ``graph`` is an error, never dropped.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

from ryvem import __version__
from ryvem.backends import BACKEND_NAMES, open_session
from ryvem.domain.validation import one_line
from ryvem.errors import RyvemError
from ryvem.mcp.server import build_server, warm_after_handshake
from ryvem.mcp.wire import guard_stdin, guard_stdout

__all__ = ["main", "parse"]

USAGE = """\
usage: ryvem-mcp [--allow-purge] [--export-dir DIR]
                      serve ryvem's memory tools over MCP (stdio); graph_export
                      writes only into DIR; --allow-purge adds memory_purge
       ryvem-mcp graph …      run `ryvem graph …` (e.g. ryvem-mcp graph export)
       ryvem-mcp --version"""


def _environment() -> str:
    return (
        f"environment: RYVEM_BACKEND ({'|'.join(BACKEND_NAMES)}), RYVEM_DATA_DIR, "
        "RYVEM_EXPORT_DIR (default $RYVEM_DATA_DIR/exports), RYVEM_NEO4J_URI, "
        "RYVEM_NEO4J_USER, RYVEM_NEO4J_PASSWORD, RYVEM_NEO4J_DATABASE"
    )


class _Parser(argparse.ArgumentParser):
    """argparse with ryvem's error shape: ``error: …`` then the usage, exit 2."""

    def error(self, message: str) -> NoReturn:
        print(f"error: {one_line(message)}\n{USAGE}", file=sys.stderr)
        sys.exit(2)


def _folder(value: str) -> str:
    if not value:
        raise argparse.ArgumentTypeError("--export-dir needs a folder")
    return value


def _parser() -> _Parser:
    p = _Parser(prog="ryvem-mcp", usage=USAGE[len("usage: "):], add_help=False,
                epilog=_environment(), allow_abbrev=False)
    p.add_argument("--allow-purge", action="store_true",
                   help="add memory_purge (a person's decision: agents only redact otherwise)")
    p.add_argument("--export-dir", type=_folder, metavar="DIR",
                   help="the only folder graph_export writes into")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    p.add_argument("-h", "--help", action="store_true", help="show this help and exit")
    return p


def _graph_at(args: list[str]) -> int:
    """Where the ``graph`` command starts (``len(args)``: none): the first ``graph`` that is
    not the value of ``--export-dir``."""
    i = 0
    while i < len(args):
        if args[i] == "graph":
            return i
        i += 2 if args[i] == "--export-dir" else 1
    return len(args)


def parse(args: list[str]) -> argparse.Namespace:
    """``ryvem-mcp``'s arguments (everything after ``graph`` is the CLI's, untouched)."""
    parser = _parser()
    cut = _graph_at(args)
    ns, unknown = parser.parse_known_args(args[:cut])
    if unknown:
        parser.error(f"unknown argument {unknown[0][:80]!r}")
    ns.graph = args[cut + 1:] if cut < len(args) else None
    if ns.graph is not None and (ns.allow_purge or ns.export_dir is not None or ns.version):
        parser.error("--allow-purge, --export-dir and --version are the server's options; "
                     "`ryvem-mcp graph …` takes the CLI's")
    return ns


def _say(text: str) -> None:
    """Print to stdout; a reader that went away (``| head``) is no error."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit


def main(argv: list[str] | None = None) -> None:
    """The ``ryvem-mcp`` console script."""
    ns = parse(sys.argv[1:] if argv is None else argv)
    if ns.help or ns.version:
        _say(_parser().format_help() if ns.help else f"ryvem-mcp {__version__}")
        return
    if ns.graph is not None:
        from ryvem.cli.app import main as cli_main  # the CLI loads only when asked for

        cli_main(["graph", *ns.graph], prog_name="ryvem-mcp")
        return
    serve(export_folder=ns.export_dir, allow_purge=ns.allow_purge)


def serve(*, export_folder: str | None, allow_purge: bool) -> None:
    """Serve over stdio until the host closes it (or ^C)."""
    try:
        session = open_session()  # reads the settings; the store opens as it warms up
    except RyvemError as e:
        print(f"error: {one_line(e.message)}", file=sys.stderr)
        sys.exit(e.exit_code)
    session.start_background_embedding()  # the server is long-lived: writes never embed
    end_stdout = guard_stdout()  # the wire answers what the SDK cannot (ryvem.mcp.wire)
    try:
        server = build_server(session, export_folder=export_folder, allow_purge=allow_purge)
        server.middleware.append(warm_after_handshake(session))
        guard_stdin()  # a message holding a lone surrogate gets a reply (ryvem.mcp.wire)
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        session.close()
        end_stdout()  # every reply written has reached the host before the process ends
