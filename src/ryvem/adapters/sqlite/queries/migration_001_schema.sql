-- migration_001_schema: the first schema (user_version 0 -> 1).
CREATE TABLE nodes (
    seq            INTEGER PRIMARY KEY,      -- rowid; the FTS index's content_rowid
    id             TEXT    NOT NULL UNIQUE,
    entity         TEXT    NOT NULL,
    kind           TEXT    NOT NULL,
    scope          TEXT    NOT NULL,
    key            TEXT,
    key_norm       TEXT,                     -- links.normalize(key): link resolution
    key_tail       TEXT,                     -- its last '/' segment
    title          TEXT    NOT NULL,
    body           TEXT    NOT NULL,
    data           TEXT    NOT NULL,         -- a JSON object
    valid_from     INTEGER NOT NULL,         -- microseconds since the epoch, UTC
    valid_to       INTEGER,                  -- NULL: the current version
    superseded_by  TEXT,
    supersedes     TEXT,
    retired_reason TEXT,
    CHECK (valid_to IS NULL OR valid_to >= valid_from),
    CHECK (json_valid(data) AND json_type(data) = 'object')
);
-- The store itself allows one current row per identity, whatever the code does.
CREATE UNIQUE INDEX nodes_one_current ON nodes(kind, key, scope)
    WHERE valid_to IS NULL AND key IS NOT NULL;
CREATE INDEX nodes_identity ON nodes(kind, key, scope, valid_from) WHERE key IS NOT NULL;
CREATE INDEX nodes_entity ON nodes(entity, valid_from);
CREATE INDEX nodes_key ON nodes(key, valid_from) WHERE key IS NOT NULL;
CREATE INDEX nodes_tail_current ON nodes(key_tail) WHERE valid_to IS NULL AND key_tail IS NOT NULL;
CREATE INDEX nodes_recent ON nodes(valid_from) WHERE valid_to IS NULL;
CREATE INDEX nodes_kind_recent ON nodes(kind, valid_from) WHERE valid_to IS NULL;
CREATE INDEX nodes_scope_recent ON nodes(scope, valid_from) WHERE valid_to IS NULL;

CREATE TABLE edges (
    id         TEXT    PRIMARY KEY,
    rel        TEXT    NOT NULL,
    src        TEXT    NOT NULL,             -- entity id (version id for 'supersedes')
    dst        TEXT    NOT NULL,
    data       TEXT    NOT NULL,
    valid_from INTEGER NOT NULL,
    valid_to   INTEGER,
    CHECK (valid_to IS NULL OR valid_to >= valid_from)
) WITHOUT ROWID;
CREATE UNIQUE INDEX edges_one_current ON edges(src, dst, rel) WHERE valid_to IS NULL;
CREATE INDEX edges_out ON edges(src, rel, dst, valid_from, valid_to);
CREATE INDEX edges_in ON edges(dst, rel, src, valid_from, valid_to);

-- Normalised link targets of each version's body: dangling links and re-resolution.
CREATE TABLE link_targets (
    version_id TEXT NOT NULL,
    target     TEXT NOT NULL,
    tail       TEXT NOT NULL,
    PRIMARY KEY (version_id, target)
) WITHOUT ROWID;
CREATE INDEX link_targets_tail ON link_targets(tail, version_id);

-- Full text over current rows only. The external content is a view of current rows, so
-- 'rebuild' and 'integrity-check' agree with what the triggers keep.
CREATE VIEW current_nodes AS SELECT seq, title, body FROM nodes WHERE valid_to IS NULL;
CREATE VIRTUAL TABLE nodes_fts USING fts5(
    title, body, content='current_nodes', content_rowid='seq',
    tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER nodes_fts_insert AFTER INSERT ON nodes WHEN new.valid_to IS NULL BEGIN
    INSERT INTO nodes_fts(rowid, title, body) VALUES (new.seq, new.title, new.body);
END;
CREATE TRIGGER nodes_fts_close AFTER UPDATE OF valid_to ON nodes
    WHEN old.valid_to IS NULL AND new.valid_to IS NOT NULL BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, title, body)
        VALUES ('delete', old.seq, old.title, old.body);
END;

-- Nothing is ever deleted, and a version's content never changes after it is written.
CREATE TRIGGER nodes_never_deleted BEFORE DELETE ON nodes BEGIN
    SELECT RAISE(ABORT, 'ryvem: node versions are never deleted');
END;
CREATE TRIGGER nodes_immutable BEFORE UPDATE OF
    seq, id, entity, kind, scope, key, key_norm, key_tail, title, body, data, valid_from, supersedes
    ON nodes BEGIN
    SELECT RAISE(ABORT, 'ryvem: node versions are immutable');
END;
CREATE TRIGGER nodes_window_closes_once BEFORE UPDATE OF valid_to ON nodes
    WHEN old.valid_to IS NOT NULL BEGIN
    SELECT RAISE(ABORT, 'ryvem: a closed window cannot change');
END;
CREATE TRIGGER edges_never_deleted BEFORE DELETE ON edges BEGIN
    SELECT RAISE(ABORT, 'ryvem: edges are never deleted');
END;
CREATE TRIGGER edges_immutable BEFORE UPDATE OF id, rel, src, dst, data, valid_from ON edges BEGIN
    SELECT RAISE(ABORT, 'ryvem: edges are immutable');
END;
CREATE TRIGGER edges_window_closes_once BEFORE UPDATE OF valid_to ON edges
    WHEN old.valid_to IS NOT NULL BEGIN
    SELECT RAISE(ABORT, 'ryvem: a closed window cannot change');
END;
