"""What the tests of the Python package share: the trama command line
($TRAMA_BIN), the shared samples ($TRAMA_SHARED), and running trama."""

import json
import os
import subprocess
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
