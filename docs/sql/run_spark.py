#!/usr/bin/env python3
"""Runs the query files of docs/sql on a trama Parquet export with Spark SQL
(a local pyspark), and compares each result with DuckDB's when the duckdb
package is there too.

    python3 run_spark.py DIR [QUERY.sql ...]     default: the four of docs/sql

Each table is a temporary view over DIR/<table> read by spark.read.parquet
(partition discovery: the folder names type=NAME give the column `type`,
percent-decoded; partition types are not inferred, so it stays a string).
The query files are the same text DuckDB runs (duckdb_run.py). Exits 1 when
a query fails or differs from DuckDB's result.
"""
import math
import os
import sys

from pyspark.sql import SparkSession

TABLES = (
    "containers", "states", "events", "links", "variables", "types", "wait_states", "critical_path",
)
HERE = os.path.dirname(os.path.abspath(__file__))


def session():
    # Everything on this machine: the driver on the loopback address.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    return (
        SparkSession.builder.master("local[2]")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.showConsoleProgress", "false")
        .appName("trama-sql")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
        .getOrCreate()
    )


def views(spark, directory):
    for t in TABLES:
        path = os.path.join(directory, t)
        if not os.path.isdir(path):
            continue  # exported with --no-why
        spark.read.option("basePath", path).parquet(path).createOrReplaceTempView(t)


def same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            return a is b
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)
    return a == b


def key(row):
    return tuple((x is None, "" if x is None else str(x)) for x in row)


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    directory = args[0]
    queries = args[1:] or [os.path.join(HERE, f"{q}.sql") for q in ("states", "states_imbalance", "comm", "wait")]
    try:
        import duckdb_run  # noqa: F401  (beside this file)
    except ImportError:
        duckdb_run = None
    spark = session()
    spark.sparkContext.setLogLevel("ERROR")
    views(spark, directory)
    con = duckdb_run.connect(directory) if duckdb_run else None
    bad = 0
    for q in queries:
        text = open(q, encoding="utf-8").read()
        try:
            rows = [tuple(r) for r in spark.sql(text).collect()]
        except Exception as e:  # noqa: BLE001
            print(f"{os.path.basename(q)}: Spark failed: {e}")
            bad += 1
            continue
        verdict = ""
        if con is not None:
            theirs = con.sql(text).fetchall()
            ok = len(rows) == len(theirs) and all(
                len(x) == len(y) and all(same(p, r) for p, r in zip(x, y))
                for x, y in zip(sorted(rows, key=key), sorted(theirs, key=key))
            )
            verdict = ", same as DuckDB" if ok else ", DIFFERENT from DuckDB"
            bad += not ok
        print(f"{os.path.basename(q)}: {len(rows)} rows on Spark {spark.version}{verdict}")
    spark.stop()
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main()
