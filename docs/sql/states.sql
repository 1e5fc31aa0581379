-- Time per state: the equivalent of `trama stats states` (whole trace,
-- no --level): one row per container, state type and value.
-- Tables: states, containers (see docs/parquet.md). Times in seconds.
WITH win AS (
  SELECT CAST(start_ns AS DOUBLE) / 1e9 AS ws, CAST(end_ns AS DOUBLE) / 1e9 AS we
  FROM containers WHERE parent_id IS NULL
),
s AS (
  -- Each state's duration inside the window; a state never ended counts
  -- up to the window's end.
  SELECT st.container_id, st.type_id, st.type, st.seq, st.level, st.value_id, st.value,
         CAST(st.start_ns AS DOUBLE) / 1e9 AS t0,
         COALESCE(CAST(st.end_ns AS DOUBLE) / 1e9, win.we) AS t1,
         GREATEST(LEAST(COALESCE(CAST(st.end_ns AS DOUBLE) / 1e9, win.we), win.we)
                  - GREATEST(CAST(st.start_ns AS DOUBLE) / 1e9, win.ws), 0.0) AS d
  FROM states st CROSS JOIN win
),
marks AS (
  -- A state's parent is the latest state created before it (seq) one
  -- level up in the same list (container, type): each state is a
  -- candidate parent for level + 1, and asks for a parent at its level.
  SELECT container_id, type_id, level + 1 AS k, seq, seq AS candidate FROM s
  UNION ALL
  SELECT container_id, type_id, level AS k, seq, CAST(NULL AS BIGINT) AS candidate FROM s
),
parents AS (
  SELECT container_id, type_id, seq,
         MAX(candidate) OVER (PARTITION BY container_id, type_id, k ORDER BY seq
                              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS parent_seq
  FROM marks
  WHERE k > 0
),
children AS (
  -- Time of the states pushed directly on each state.
  SELECT p.container_id, p.type_id, p.parent_seq AS seq, SUM(s.d) AS d
  FROM parents p
  JOIN s ON s.container_id = p.container_id AND s.type_id = p.type_id AND s.seq = p.seq
  WHERE p.parent_seq IS NOT NULL AND p.parent_seq <> p.seq
  GROUP BY p.container_id, p.type_id, p.parent_seq
),
per_state AS (
  SELECT s.container_id, s.type_id, s.type, s.value_id, s.value, s.t0, s.t1, s.d,
         s.d - COALESCE(c.d, 0.0) AS exclusive,
         -- Inclusive: not when an enclosing state has the same value. An
         -- earlier state of the same list and value that ends after this
         -- one starts encloses it.
         CASE WHEN MAX(s.t1) OVER (PARTITION BY s.container_id, s.type_id, s.value_id ORDER BY s.seq
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) > s.t0
              THEN 0.0 ELSE s.d END AS inclusive
  FROM s
  LEFT JOIN children c ON c.container_id = s.container_id AND c.type_id = s.type_id
                       AND c.seq = s.seq
)
SELECT ct.name AS container,
       ct.type AS container_type,
       1 AS containers,
       p.type AS state_type,
       p.value AS value,
       COUNT(*) AS count,
       SUM(p.d) AS total,
       SUM(p.exclusive) AS exclusive,
       SUM(p.inclusive) AS inclusive,
       SUM(p.d) / COUNT(*) AS mean,
       MAX(p.d) AS max,
       CASE WHEN MAX(win.we) > MAX(win.ws) THEN SUM(p.inclusive) / (MAX(win.we) - MAX(win.ws))
            ELSE 0.0 END AS share
FROM per_state p
JOIN containers ct ON ct.id = p.container_id
CROSS JOIN win
-- Only the states that overlap the window (touching counts).
WHERE p.t1 >= win.ws AND p.t0 <= win.we
GROUP BY ct.id, ct.path, ct.name, ct.type, p.type_id, p.type, p.value_id, p.value
ORDER BY ct.path, ct.id, p.type, p.value
