"""Pages the search tests write: three short decisions an agent might have recorded."""

from __future__ import annotations

DECISIONS = [
    ("Keep sessions in signed cookies", "sessions",
     "User login state lives in a signed cookie, never in the database."),
    ("Checkout is idempotent", "checkout",
     "Each checkout request carries a key, so a client may retry it safely."),
    ("Use SQLite", "store", "One embedded file; no server to run."),
]
