-- Wait at N x N, as `trama stats waits` finds it (Scalasca's
-- definition), from the states table alone. One row per waiting
-- container: seconds and instances.
--
-- MPI calls are recognized as in late_sender.sql. The N-to-N operations
-- are allreduce, allgather(v), alltoall(v, w) and reduce_scatter(_block):
-- a process's n-th call of one name (its state value) joins the n-th call of that name of
-- every other process (one instance: trama's rule for traces without
-- communicators; on an OTF2 archive trama matches by communicator, which
-- the tables do not hold, so both agree when every collective involves
-- every process). In an instance, each call waits
-- min(latest enter, its exit) - its enter, when positive.
-- Tables: states, containers (see docs/parquet.md).
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
nxn AS (
  SELECT container_id, value, enter, exit,
         ROW_NUMBER() OVER (PARTITION BY container_id, value ORDER BY enter, exit DESC) AS n
  FROM calls
  WHERE op IN ('allreduce', 'allgather', 'allgatherv', 'alltoall', 'alltoallv', 'alltoallw',
               'reduce_scatter', 'reduce_scatter_block', 'reducescatter')
),
waits AS (
  SELECT container_id,
         LEAST(MAX(enter) OVER (PARTITION BY value, n), exit) - enter AS idle_ns
  FROM nxn
)
SELECT c.name AS container,
       SUM(CAST(w.idle_ns AS DOUBLE)) / 1e9 AS seconds,
       COUNT(*) AS instances
FROM waits w
JOIN containers c ON c.id = w.container_id
WHERE w.idle_ns > 0
GROUP BY c.path, c.name
ORDER BY c.path
