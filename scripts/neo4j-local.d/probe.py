#!/usr/bin/env python3
"""Readiness probe for scripts/neo4j-local (Python 3 stdlib; uses the official
`neo4j` driver too when it is importable).

usage: probe.py PORT [--auth]   (--auth: user neo4j, password taken from the
                                 environment variable RYVEM_NEO4J_LOCAL_PASSWORD,
                                 so it never shows up in `ps`)
       probe.py --has-driver     (exit 0 if `import neo4j` works)

Exit codes: 0 = Bolt answers (and, with the driver, `RETURN 1` succeeded with
the given credentials); 1 = not (yet) answering; 3 = authentication failed
(fatal: waiting longer will not help).
"""
from __future__ import annotations

import argparse
import os
import socket
import sys

HOST = "127.0.0.1"


def has_driver() -> bool:
    try:
        import neo4j  # noqa: F401
    except Exception:
        return False
    return True


def bolt_handshake(port: int, timeout: float = 3.0) -> bool:
    """Send the Bolt preamble and ask for any 5.x/4.x version; a Bolt server
    answers with a 4-byte version that is not all zeros."""
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as s:
            s.settimeout(timeout)
            s.sendall(
                b"\x60\x60\xb0\x17"
                + bytes([0, 8, 8, 5])  # 5.8 down to 5.0
                + bytes([0, 4, 4, 4])  # 4.4 down to 4.0
                + bytes(4)
                + bytes(4)
            )
            data = b""
            while len(data) < 4:
                chunk = s.recv(4 - len(data))
                if not chunk:
                    return False
                data += chunk
            return data != b"\x00\x00\x00\x00"
    except OSError:
        return False


def driver_query(port: int, user: str, password: str) -> int:
    from neo4j import GraphDatabase
    from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable, SessionExpired

    uri = f"bolt://{HOST}:{port}"
    try:
        with GraphDatabase.driver(
            uri, auth=(user, password), connection_timeout=3.0, max_transaction_retry_time=0
        ) as driver:
            records, _, _ = driver.execute_query("RETURN 1 AS ok")
            return 0 if records and records[0]["ok"] == 1 else 1
    except AuthError as exc:
        print(f"authentication failed for user {user!r}: {exc}", file=sys.stderr)
        return 3
    except (ServiceUnavailable, SessionExpired, OSError):
        return 1
    except Neo4jError as exc:
        # e.g. database still starting ("Neo.TransientError.General.DatabaseUnavailable")
        code = getattr(exc, "code", "") or ""
        if "Security.Unauthorized" in code or "AuthenticationRateLimit" in code:
            print(f"authentication failed for user {user!r}: {exc}", file=sys.stderr)
            return 3
        return 1
    except Exception:  # pragma: no cover - anything else: keep polling
        return 1


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int, nargs="?")
    ap.add_argument("--auth", action="store_true")
    ap.add_argument("--has-driver", action="store_true")
    args = ap.parse_args()

    if args.has_driver:
        return 0 if has_driver() else 1
    if args.port is None:
        ap.error("PORT is required")
    if not bolt_handshake(args.port):
        return 1
    if args.auth and has_driver():
        password = os.environ.get("RYVEM_NEO4J_LOCAL_PASSWORD", "ryvem-test-password")
        return driver_query(args.port, "neo4j", password)
    return 0


if __name__ == "__main__":
    sys.exit(main())
