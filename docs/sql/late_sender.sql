-- Late Sender, as `trama stats waits` finds it (Scalasca's definition,
-- its wrong-order part included: trama's rows late_sender and
-- late_sender_wrong_order added up), from the states and links tables
-- alone. One row per waiting container: seconds and instances.
--
-- An MPI call is a state whose value, trimmed and in lower case, starts
-- with one of the prefixes pmpi_, mpi_, action_ (SimGrid's SMPI replay)
-- and smpi_ (each stripped in this order), and names an operation after
-- them (action_compute and action_sleep are computation, not calls), as
-- `trama stats waits` reads them (docs/stats-formats.md, "waits"). OTF2's `MPI collective` states are not calls (their
-- region's state is). A message is a link of a message type (a type with
-- a link lasting more than 0 s) from a process to a process. Its receive
-- call is the receiver's call, entered last, that contains the link's end
-- (boundaries included); its send call the sender's that contains its
-- start. A late sender: the receive call is a receive (recv, sendrecv,
-- sendrecv_replace, probe, wait, waitall, waitany, waitsome) entered
-- before the send call (the link's start without one); it waits
-- min(send enter, receive exit) - receive enter. A call completing several
-- messages (MPI_Waitall) counts once, for its latest sender.
--
-- Where trama is finer: a link ending on a container below a process
-- counts for that process in trama; here only links between the processes'
-- own containers count (as in OTF2, SMPI and Akypuera traces).
-- Tables: states, links, containers (see docs/parquet.md).
WITH stripped AS (
  SELECT s.container_id, s.type_id, s.seq, s.value, s.start_ns AS enter, s.end_ns AS exit,
         regexp_replace(trim(lower(s.value)), '^(pmpi_)?(mpi_)?(action_)?(smpi_)?', '') AS op,
         regexp_extract(trim(lower(s.value)), '^(pmpi_|mpi_|action_|smpi_)', 0) <> '' AS prefixed
  FROM states s
  WHERE s.end_ns IS NOT NULL AND s.type NOT IN ('MPI collective', '"MPI collective"')
),
calls AS (
  SELECT *,
         op IN ('recv', 'sendrecv', 'sendrecv_replace', 'probe',
                'wait', 'waitall', 'waitany', 'waitsome') AS is_receive
  FROM stripped
  WHERE prefixed AND op NOT IN ('', 'compute', 'sleep')
),
processes AS (
  SELECT DISTINCT container_id FROM calls
),
message_types AS (
  SELECT type_id FROM links GROUP BY type_id HAVING MAX(end_ns - start_ns) > 0
),
messages AS (
  SELECT l.type_id, l.seq, l.start_container_id AS sender, l.end_container_id AS receiver,
         l.start_ns AS sent, l.end_ns AS received
  FROM links l
  JOIN message_types t ON t.type_id = l.type_id
  JOIN processes ps ON ps.container_id = l.start_container_id
  JOIN processes pr ON pr.container_id = l.end_container_id
  WHERE l.end_ns IS NOT NULL
),
receive_calls AS (
  -- Each message's receive call: the receiver's call entered last that
  -- contains its end (among equal enters, the shorter).
  SELECT * FROM (
    SELECT m.type_id, m.seq, m.receiver, m.sent,
           c.type_id AS call_type, c.seq AS call_seq, c.enter, c.exit, c.is_receive,
           ROW_NUMBER() OVER (PARTITION BY m.type_id, m.seq ORDER BY c.enter DESC, c.exit) AS k
    FROM messages m
    JOIN calls c ON c.container_id = m.receiver AND c.enter <= m.received
                    AND m.received <= c.exit
  ) r WHERE r.k = 1
),
send_enters AS (
  SELECT * FROM (
    SELECT m.type_id, m.seq, c.enter AS send_enter,
           ROW_NUMBER() OVER (PARTITION BY m.type_id, m.seq ORDER BY c.enter DESC, c.exit) AS k
    FROM messages m
    JOIN calls c ON c.container_id = m.sender AND c.enter <= m.sent AND m.sent <= c.exit
  ) s WHERE s.k = 1
),
idles AS (
  SELECT r.receiver, r.call_type, r.call_seq,
         LEAST(COALESCE(s.send_enter, r.sent), r.exit) - r.enter AS idle_ns
  FROM receive_calls r
  LEFT JOIN send_enters s ON s.type_id = r.type_id AND s.seq = r.seq
  WHERE r.is_receive
),
instances AS (
  -- One instance per receive call: its latest sender.
  SELECT receiver, MAX(idle_ns) AS idle_ns
  FROM idles WHERE idle_ns > 0
  GROUP BY receiver, call_type, call_seq
)
SELECT c.name AS container,
       SUM(CAST(i.idle_ns AS DOUBLE)) / 1e9 AS seconds,
       COUNT(*) AS instances
FROM instances i
JOIN containers c ON c.id = i.receiver
GROUP BY c.path, c.name
ORDER BY c.path
