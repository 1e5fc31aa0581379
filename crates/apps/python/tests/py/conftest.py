"""What the tests of the Python package share: the trama command line
($TRAMA_BIN), the shared samples ($TRAMA_SHARED), and running trama."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SHARED = Path(os.environ["TRAMA_SHARED"])
SAMPLES = SHARED / "samples"

# Samples of every format the package reads, with what they hold.
TRACES = [
    "paje-real/simgrid/s4u-trace-platform.paje",
    "paje-real/simgrid/s4u-trace-process-migration.paje",
    "paje-real/simgrid/smpi-replay.paje",
    "paje-real/simgrid/pajengr-simgrid-3.20.90-masterworkers.trace",
    "paje-real/starpu/starvz-lu_test-header-only-paje.trace",
    "otf2/pipit-ping-pong/traces.otf2",
    "otf2/apex-phylanx/APEX.otf2",
    "paraver/profet-test1/test1.prv",
    "paraver/folding-bt.B/bt.B.models.prv",
]

PING_PONG = SAMPLES / "otf2/pipit-ping-pong/traces.otf2"

# The generator of MPI runs with known waits (trama-why's tests).
MPI_RUNS = Path(__file__).resolve().parents[5] / "crates/analyses/why/tests/mpi_runs.py"


def run(*args, check=True):
    """Runs trama with `args`; the completed process."""
    p = subprocess.run([os.environ["TRAMA_BIN"], *map(str, args)], capture_output=True, text=True)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def stats_json(analysis, path, *args):
    """`trama stats ANALYSIS PATH ARGS --format json`, parsed."""
    return json.loads(run("stats", analysis, path, *args, "--format", "json").stdout)


@pytest.fixture(params=TRACES)
def sample(request):
    """Each sample trace's path."""
    return SAMPLES / request.param


@pytest.fixture(scope="session")
def ptb(tmp_path_factory):
    """A sample converted to trama's binary format."""
    out = tmp_path_factory.mktemp("ptb") / "masterworkers.ptb"
    run("convert", SAMPLES / TRACES[3], out)
    return out


def _otf2_python():
    """A Python with the OTF2 library's module (Debian's python3-otf2), or None."""
    for py in (sys.executable, "/usr/bin/python3", "python3"):
        ok = subprocess.run([py, "-c", "import otf2"], capture_output=True).returncode == 0
        if ok:
            return py
    return None


@pytest.fixture(scope="session")
def mpi_runs(tmp_path_factory):
    """Generated MPI runs (mpi_runs.py, 4 ranks): their folder, with
    `waits.paje` and `chain.paje`, and `waits/traces.otf2` when a Python
    with the OTF2 module is there."""
    out = tmp_path_factory.mktemp("why") / "runs"
    py = _otf2_python()
    args = [py or sys.executable, MPI_RUNS, out, "--ranks", "4", "--iterations", "2", "--seed", "3"]
    if py is None:
        args.append("--no-otf2")
    subprocess.run(list(map(str, args)), check=True, capture_output=True)
    return out
