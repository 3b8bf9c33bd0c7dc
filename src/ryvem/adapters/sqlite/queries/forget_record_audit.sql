-- forget_record_audit: Append one audit entry (:id, :at, :who, :via, :action, :reason, :scope,
-- :node, :versions, :edges).
INSERT INTO audit (id, at, who, via, action, reason, scope, node, versions, edges)
VALUES (:id, :at, :who, :via, :action, :reason, :scope, :node, :versions, :edges);
