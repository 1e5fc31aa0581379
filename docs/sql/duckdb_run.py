#!/usr/bin/env python3
"""Runs a query file of docs/sql on a trama Parquet export with DuckDB.

    python3 duckdb_run.py DIR QUERY.sql [--json]

Defines one view per table (containers, states, events, links, variables,
types, wait_states, critical_path) over DIR/<table>/*/*.parquet with Hive
partitioning (the partition column read as text), then runs the query and
prints its rows (as a JSON list of objects with --json).
"""
import json
import os
import sys

import duckdb

TABLES = (
    "containers", "states", "events", "links", "variables", "types", "wait_states", "critical_path",
)
# The partition column of each table: the entity type's name, but for these.
KEYS = {"types": "kind", "wait_states": "pattern"}


def connect(directory):
    con = duckdb.connect()
    for t in TABLES:
        if not os.path.isdir(os.path.join(directory, t)):
            continue  # exported with --no-why
        key = KEYS.get(t, "type")
        path = f"{directory}/{t}/*/*.parquet".replace("'", "''")
        con.execute(
            f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{path}', "
            f"hive_partitioning = true, hive_types = {{'{key}': VARCHAR}})"
        )
    return con


def main():
    args = [a for a in sys.argv[1:] if a != "--json"]
    if len(args) != 2:
        sys.exit(__doc__)
    con = connect(args[0])
    with open(args[1], encoding="utf-8") as f:
        rel = con.sql(f.read())
    if "--json" in sys.argv:
        cols = rel.columns
        rows = [dict(zip(cols, r)) for r in rel.fetchall()]
        json.dump(rows, sys.stdout)
        print()
    else:
        rel.show(max_rows=1000)


if __name__ == "__main__":
    main()
