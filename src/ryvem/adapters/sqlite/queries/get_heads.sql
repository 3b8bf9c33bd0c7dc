-- get_heads: Body-less heads (the domain's NodeHead fields) of entities valid at :as_of.
SELECT {head_cols} FROM nodes n
WHERE n.entity IN (SELECT value FROM json_each(:entities)) AND {valid};
