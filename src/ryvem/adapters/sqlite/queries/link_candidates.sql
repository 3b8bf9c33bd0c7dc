-- link_candidates: Current keyed nodes whose key's last segment is in :tails.
SELECT n.entity, n.kind, n.key, n.scope FROM nodes n
WHERE n.key_tail IN (SELECT value FROM json_each(:tails)) AND n.valid_to IS NULL
  AND n.key_tail IS NOT NULL;
