-- Communication matrix: the equivalent of `trama stats comm` (whole
-- trace, no --level, no --size-field): messages per pair of containers.
-- Like trama, link types whose links all last zero seconds (a platform's
-- topology) are not messages. Tables: links (see docs/parquet.md).
WITH message_types AS (
  SELECT type_id FROM links GROUP BY type_id HAVING MAX(end_ns - start_ns) > 0
)
SELECT l.start_container AS from_container,
       l.end_container AS to_container,
       COUNT(*) AS count
FROM links l
JOIN message_types m ON m.type_id = l.type_id
WHERE l.start_container_id IS NOT NULL AND l.end_container_id IS NOT NULL
GROUP BY l.start_container_id, l.start_container, l.end_container_id, l.end_container
ORDER BY l.start_container_id, l.end_container_id
