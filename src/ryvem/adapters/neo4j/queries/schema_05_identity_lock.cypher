// schema_05_identity_lock: one lock node per identity, so writers of one identity serialise.
// No parameters.
CREATE CONSTRAINT ryvem_identity_lock IF NOT EXISTS FOR (l:IdentityLock) REQUIRE l.ident IS UNIQUE
