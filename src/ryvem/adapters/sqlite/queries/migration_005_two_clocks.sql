-- migration_005_two_clocks: system time beside valid time (issue 16). valid_from/valid_to
-- become valid time (when a fact was true, which the caller may date); recorded_at is when
-- ryvem recorded the row and closure_recorded_at when it recorded the window's end (system
-- time, ryvem's own clock, never supplied). Existing rows were recorded as they became valid,
-- so they get system time = valid time and every read answers as before.
ALTER TABLE nodes ADD COLUMN recorded_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE nodes ADD COLUMN closure_recorded_at INTEGER;
UPDATE nodes SET recorded_at = valid_from, closure_recorded_at = valid_to;
ALTER TABLE edges ADD COLUMN recorded_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE edges ADD COLUMN closure_recorded_at INTEGER;
UPDATE edges SET recorded_at = valid_from, closure_recorded_at = valid_to;

-- System time is immutable too: recorded once, a closure recorded once and with its window.
DROP TRIGGER nodes_immutable;
CREATE TRIGGER nodes_immutable BEFORE UPDATE OF
    seq, id, entity, kind, scope, key, key_norm, key_tail, title, body, data, valid_from, supersedes,
    recorded_at
    ON nodes BEGIN
    SELECT RAISE(ABORT, 'ryvem: node versions are immutable');
END;
DROP TRIGGER nodes_window_closes_once;
CREATE TRIGGER nodes_window_closes_once BEFORE UPDATE OF valid_to, closure_recorded_at ON nodes
    WHEN old.valid_to IS NOT NULL OR old.closure_recorded_at IS NOT NULL BEGIN
    SELECT RAISE(ABORT, 'ryvem: a closed window cannot change');
END;
DROP TRIGGER edges_immutable;
CREATE TRIGGER edges_immutable BEFORE UPDATE OF
    id, rel, src, dst, data, valid_from, recorded_at ON edges BEGIN
    SELECT RAISE(ABORT, 'ryvem: edges are immutable');
END;
DROP TRIGGER edges_window_closes_once;
CREATE TRIGGER edges_window_closes_once BEFORE UPDATE OF valid_to, closure_recorded_at ON edges
    WHEN old.valid_to IS NOT NULL OR old.closure_recorded_at IS NOT NULL BEGIN
    SELECT RAISE(ABORT, 'ryvem: a closed window cannot change');
END;
-- Both clocks move together: a row is recorded no earlier than it became valid, and its
-- window's end is recorded with it, no earlier than the end itself (no future valid time).
CREATE TRIGGER nodes_clocks_insert BEFORE INSERT ON nodes
    WHEN new.recorded_at < new.valid_from
      OR (new.valid_to IS NULL) <> (new.closure_recorded_at IS NULL)
      OR new.closure_recorded_at < new.valid_to BEGIN
    SELECT RAISE(ABORT, 'ryvem: a version is recorded no earlier than it is valid');
END;
CREATE TRIGGER nodes_clocks_close BEFORE UPDATE OF valid_to ON nodes
    WHEN new.closure_recorded_at IS NULL OR new.closure_recorded_at < new.valid_to BEGIN
    SELECT RAISE(ABORT, 'ryvem: a window''s end is recorded no earlier than it is valid');
END;
CREATE TRIGGER edges_clocks_insert BEFORE INSERT ON edges
    WHEN new.recorded_at < new.valid_from
      OR (new.valid_to IS NULL) <> (new.closure_recorded_at IS NULL)
      OR new.closure_recorded_at < new.valid_to BEGIN
    SELECT RAISE(ABORT, 'ryvem: an edge is recorded no earlier than it is valid');
END;
CREATE TRIGGER edges_clocks_close BEFORE UPDATE OF valid_to ON edges
    WHEN new.closure_recorded_at IS NULL OR new.closure_recorded_at < new.valid_to BEGIN
    SELECT RAISE(ABORT, 'ryvem: a window''s end is recorded no earlier than it is valid');
END;
