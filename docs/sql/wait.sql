-- Who waited for whom by the last message: `trama stats wait
-- --last-message` (whole trace, default waiting patterns), the method of
-- `trama stats wait` on traces without MPI calls. On MPI runs `trama stats
-- wait` adds up the wait states instead (docs/stats-formats.md, "wait"),
-- whose patterns are in SQL in late_sender.sql and wait_nxn.sql (per
-- waiting container). A waiting state's value has a word
-- containing receive, recv, wait, barrier, bcast, reduce, gather,
-- scatter, alltoall, probe or ssend, and no word starting with i before
-- such a pattern, as in MPI_Irecv. A container's waiting states, of every
-- state type, in order of start (the longer first), are merged into
-- waits: a state joins the wait before it when it starts before that
-- wait ends, or when it starts (so a wait is counted once, an MPI
-- collective inside its region too). Each wait goes to the sender of the
-- latest message ending on its container during it, else to
-- 'unattributed'. One row per (container, sender): seconds, and the
-- shares of the container's time and of its waiting.
-- Tables: states, links, containers (see docs/parquet.md).
WITH win AS (
  SELECT CAST(start_ns AS DOUBLE) / 1e9 AS ws, CAST(end_ns AS DOUBLE) / 1e9 AS we
  FROM containers WHERE parent_id IS NULL
),
waiting AS (
  -- Waiting states cut to the window: [a, b].
  SELECT st.container_id, st.type_id, st.seq,
         GREATEST(CAST(st.start_ns AS DOUBLE) / 1e9, win.ws) AS a,
         LEAST(COALESCE(CAST(st.end_ns AS DOUBLE) / 1e9, win.we), win.we) AS b
  FROM states st CROSS JOIN win
  WHERE regexp_extract(lower(st.value),
          '(receive|recv|wait|barrier|bcast|reduce|gather|scatter|alltoall|probe|ssend)', 0) <> ''
    AND regexp_extract(lower(st.value),
          '(^|[^a-z0-9])i[a-z0-9]*(receive|recv|wait|barrier|bcast|reduce|gather|scatter|alltoall|probe|ssend)', 0) = ''
    AND COALESCE(CAST(st.end_ns AS DOUBLE) / 1e9, win.we) >= win.ws
    AND CAST(st.start_ns AS DOUBLE) / 1e9 <= win.we
),
ordered AS (
  -- Per container in order of start, the longer first: the latest end and
  -- the start of the states before each one.
  SELECT w.container_id, w.type_id, w.seq, w.a, w.b,
         MAX(w.b) OVER (PARTITION BY w.container_id ORDER BY w.a, w.b DESC, w.type_id, w.seq
                        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS end_before,
         LAG(w.a) OVER (PARTITION BY w.container_id
                        ORDER BY w.a, w.b DESC, w.type_id, w.seq) AS start_before
  FROM waiting w
),
numbered AS (
  -- A state starts a new wait unless it starts before the wait so far
  -- ends, or when the state before it starts (then when the wait starts).
  SELECT o.container_id, o.a, o.b,
         SUM(CASE WHEN o.end_before IS NULL
                       OR (o.a >= o.end_before AND o.a > o.start_before) THEN 1 ELSE 0 END)
           OVER (PARTITION BY o.container_id ORDER BY o.a, o.b DESC, o.type_id, o.seq
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS wait_no
  FROM ordered o
),
waits AS (
  SELECT ROW_NUMBER() OVER (ORDER BY container_id, wait_no) AS wait_id,
         container_id,
         MIN(a) AS a,
         MAX(b) AS b,
         GREATEST(MAX(b) - MIN(a), 0.0) AS d
  FROM numbered
  GROUP BY container_id, wait_no
),
message_types AS (
  SELECT type_id FROM links GROUP BY type_id HAVING MAX(end_ns - start_ns) > 0
),
arrivals AS (
  -- Messages by their end container, numbered in order of arrival.
  SELECT l.end_container_id AS container_id,
         l.start_container_id AS sender_id,
         CAST(l.end_ns AS DOUBLE) / 1e9 AS t,
         ROW_NUMBER() OVER (PARTITION BY l.end_container_id ORDER BY l.end_ns, l.seq) AS n
  FROM links l JOIN message_types m ON m.type_id = l.type_id
  WHERE l.start_container_id IS NOT NULL AND l.end_container_id IS NOT NULL
    AND l.end_ns IS NOT NULL
),
timeline AS (
  -- Arrivals and ends of waits in time order (an arrival at the very end
  -- of a wait counts): the latest arrival so far at each wait's end.
  SELECT container_id, t, 0 AS what, n, CAST(NULL AS BIGINT) AS wait_id FROM arrivals
  UNION ALL
  SELECT container_id, b AS t, 1 AS what, CAST(NULL AS BIGINT) AS n, wait_id FROM waits
),
latest AS (
  SELECT wait_id,
         MAX(n) OVER (PARTITION BY container_id ORDER BY t, what
                      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS n
  FROM timeline
),
attributed AS (
  SELECT w.container_id, w.d,
         CASE WHEN a.t >= w.a THEN a.sender_id END AS sender_id
  FROM waits w
  JOIN latest l ON l.wait_id = w.wait_id
  LEFT JOIN arrivals a ON a.container_id = w.container_id AND a.n = l.n
),
cells AS (
  SELECT container_id, sender_id, SUM(d) AS seconds
  FROM attributed GROUP BY container_id, sender_id
),
totals AS (
  SELECT container_id, SUM(seconds) AS waiting FROM cells GROUP BY container_id
),
container_time AS (
  -- Each container's lifetime inside the window.
  SELECT c.id AS container_id,
         GREATEST(LEAST(COALESCE(CAST(c.end_ns AS DOUBLE) / 1e9, win.we), win.we)
                  - GREATEST(CAST(c.start_ns AS DOUBLE) / 1e9, win.ws), 0.0) AS time
  FROM containers c CROSS JOIN win
)
SELECT c.name AS container,
       COALESCE(s.name, 'unattributed') AS sender,
       cells.seconds,
       ct.time,
       t.waiting,
       -- Shares under 0.1 % are 0, as trama reports them.
       CASE WHEN cells.seconds / NULLIF(ct.time, 0.0) >= 0.001
            THEN cells.seconds / ct.time ELSE 0.0 END AS share_of_time,
       CASE WHEN cells.seconds / NULLIF(t.waiting, 0.0) >= 0.001
            THEN cells.seconds / t.waiting ELSE 0.0 END AS share_of_waiting
FROM cells
JOIN totals t ON t.container_id = cells.container_id
JOIN container_time ct ON ct.container_id = cells.container_id
JOIN containers c ON c.id = cells.container_id
LEFT JOIN containers s ON s.id = cells.sender_id
ORDER BY c.path, sender
