-- migration_002_porter_text: stemmed full text, and an index of every version's text for as-of
-- search (user_version 1 -> 2). Words are stemmed (Porter, English) over unicode61 with
-- diacritics folded; the key (a page's name) is indexed too. nodes_fts holds current rows
-- (current search), nodes_fts_all every version (as-of search, filtered by the window). Both
-- are external-content tables kept by triggers on `nodes`, so any change of a row reaches
-- them. The adapter fills both after this script, in the same transaction, in batches (with
-- progress): see SqliteRepository._migrate.
DROP TRIGGER IF EXISTS nodes_fts_insert;
DROP TRIGGER IF EXISTS nodes_fts_close;
DROP TABLE IF EXISTS nodes_fts;
DROP VIEW IF EXISTS current_nodes;

CREATE VIEW current_nodes AS SELECT seq, title, key, body FROM nodes WHERE valid_to IS NULL;
CREATE VIRTUAL TABLE nodes_fts USING fts5(
    title, key, body, content='current_nodes', content_rowid='seq',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE nodes_fts_all USING fts5(
    title, key, body, content='nodes', content_rowid='seq',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER nodes_fts_insert AFTER INSERT ON nodes BEGIN
    INSERT INTO nodes_fts_all(rowid, title, key, body)
        VALUES (new.seq, new.title, new.key, new.body);
    INSERT INTO nodes_fts(rowid, title, key, body)
        SELECT new.seq, new.title, new.key, new.body WHERE new.valid_to IS NULL;
END;
CREATE TRIGGER nodes_fts_close AFTER UPDATE OF valid_to ON nodes
    WHEN old.valid_to IS NULL AND new.valid_to IS NOT NULL BEGIN
    INSERT INTO nodes_fts(nodes_fts, rowid, title, key, body)
        VALUES ('delete', old.seq, old.title, old.key, old.body);
END;
-- Text changes (none today: nodes_immutable refuses them; an audited rewrite may lift that).
CREATE TRIGGER nodes_fts_text AFTER UPDATE OF title, key, body ON nodes BEGIN
    INSERT INTO nodes_fts_all(nodes_fts_all, rowid, title, key, body)
        VALUES ('delete', old.seq, old.title, old.key, old.body);
    INSERT INTO nodes_fts_all(rowid, title, key, body)
        VALUES (new.seq, new.title, new.key, new.body);
    INSERT INTO nodes_fts(nodes_fts, rowid, title, key, body)
        SELECT 'delete', old.seq, old.title, old.key, old.body WHERE old.valid_to IS NULL;
    INSERT INTO nodes_fts(rowid, title, key, body)
        SELECT new.seq, new.title, new.key, new.body WHERE new.valid_to IS NULL;
END;
