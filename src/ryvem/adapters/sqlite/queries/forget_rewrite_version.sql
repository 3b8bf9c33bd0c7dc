-- forget_rewrite_version: Replace one version's content in place and mark it :erased (only inside
-- an open forget_pass; the triggers refuse it otherwise and never let the skeleton change).
UPDATE nodes SET title = :title, body = :body, data = :data, retired_reason = :retired_reason,
                 erased = :erased
WHERE id = :id;
