"""Node verbs: put, get, history, retire, link, unlink, search, stats (written with the CLI)."""
