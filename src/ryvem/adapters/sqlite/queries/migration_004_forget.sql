-- migration_004_forget: redact and purge, the one audited way to rewrite content (applied after 001-003, in file order).
-- A version gains `erased` ('redacted' or 'purged', else NULL); `audit` records every
-- forgetting (never the removed text); the immutability triggers are split so that a
-- version's skeleton never changes, and its content only inside a transaction that holds
-- a row in `forget_pass` (inserted with the audit entry, removed before the commit) and
-- marks the row it rewrites. The FTS index follows a rewritten current row.
ALTER TABLE nodes ADD COLUMN erased TEXT CHECK (erased IS NULL OR erased IN ('redacted', 'purged'));

CREATE TABLE audit (
    seq      INTEGER PRIMARY KEY,
    id       TEXT    NOT NULL UNIQUE,
    at       INTEGER NOT NULL,             -- microseconds since the epoch, UTC
    who      TEXT    NOT NULL,             -- the OS user, or the MCP client's name
    via      TEXT    NOT NULL,             -- cli, mcp or library
    action   TEXT    NOT NULL CHECK (action IN ('redact', 'purge')),
    reason   TEXT,
    scope    TEXT    NOT NULL,             -- the scope searched ('*': all), or the node's
    node     TEXT,                         -- the purged node (KIND/KEY or id)
    versions INTEGER NOT NULL,
    edges    INTEGER NOT NULL
);
CREATE INDEX audit_recent ON audit(at);
CREATE TRIGGER audit_never_deleted BEFORE DELETE ON audit BEGIN
    SELECT RAISE(ABORT, 'ryvem: audit entries are never deleted');
END;
CREATE TRIGGER audit_immutable BEFORE UPDATE ON audit BEGIN
    SELECT RAISE(ABORT, 'ryvem: audit entries are immutable');
END;

-- Open only inside a redact or purge transaction: one row naming its audit entry.
CREATE TABLE forget_pass (
    audit_id TEXT PRIMARY KEY REFERENCES audit(id)
) WITHOUT ROWID;

DROP TRIGGER nodes_immutable;
CREATE TRIGGER nodes_skeleton_immutable BEFORE UPDATE OF
    seq, id, entity, kind, scope, key, key_norm, key_tail, valid_from, supersedes
    ON nodes BEGIN
    SELECT RAISE(ABORT, 'ryvem: node versions are immutable');
END;
CREATE TRIGGER nodes_content_immutable BEFORE UPDATE OF title, body, data, erased ON nodes
    WHEN NOT EXISTS (SELECT 1 FROM forget_pass) OR new.erased IS NULL
      OR (old.erased = 'purged' AND new.erased IS NOT 'purged') BEGIN
    SELECT RAISE(ABORT, 'ryvem: node versions are immutable (only redact and purge rewrite content)');
END;
CREATE TRIGGER nodes_reason_immutable BEFORE UPDATE OF retired_reason ON nodes
    WHEN old.valid_to IS NOT NULL AND (NOT EXISTS (SELECT 1 FROM forget_pass) OR new.erased IS NULL) BEGIN
    SELECT RAISE(ABORT, 'ryvem: a closed version''s retire reason cannot change');
END;
-- A rewritten current row leaves the FTS index with its old text and enters it with its new.
CREATE TRIGGER nodes_fts_rewrite AFTER UPDATE OF title, body ON nodes
    WHEN old.valid_to IS NULL AND new.valid_to IS NULL BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, title, body)
        VALUES ('delete', old.seq, old.title, old.body);
    INSERT INTO nodes_fts(rowid, title, body) VALUES (new.seq, new.title, new.body);
END;

DROP TRIGGER edges_immutable;
CREATE TRIGGER edges_skeleton_immutable BEFORE UPDATE OF id, rel, src, dst, valid_from ON edges BEGIN
    SELECT RAISE(ABORT, 'ryvem: edges are immutable');
END;
CREATE TRIGGER edges_data_immutable BEFORE UPDATE OF data ON edges
    WHEN NOT EXISTS (SELECT 1 FROM forget_pass) BEGIN
    SELECT RAISE(ABORT, 'ryvem: edges are immutable (only redact and purge rewrite their data)');
END;
-- Link targets are rewritten only with their version.
CREATE TRIGGER link_targets_kept BEFORE DELETE ON link_targets
    WHEN NOT EXISTS (SELECT 1 FROM forget_pass) BEGIN
    SELECT RAISE(ABORT, 'ryvem: link targets are never deleted (only redact and purge rewrite them)');
END;
