"""A new server process made ready before its first visitor (`metriclab.warm_up`, issue 42)."""

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse

import metriclab.array_module as array_module
import metriclab.eigen as eigen
import metriclab.evaluation.scoring as scoring
import metriclab.graphs as graphs
from metriclab import warm_up
from metriclab.array_module import Backend, gpu_available
from metriclab.deploy import worker_command
from metriclab.methods.spectral import TDL


@pytest.mark.parametrize(
    ("value", "on"), [(None, True), ("1", True), ("0", False), ("off", False), (" No ", False)]
)
def test_the_variable_turns_the_warm_up_off(value, on):
    environ = {} if value is None else {warm_up.ENV: value}
    assert warm_up.enabled(environ) is on
    if not on:
        assert warm_up.start(environ) is None


def test_a_warm_up_imports_the_first_views_modules_and_never_streamlit():
    """In a fresh interpreter: after `start`, the modules are loaded, Streamlit is not (a cached
    function imported before Streamlit's runtime would be bound outside it), and the thread says
    it is done in one line."""
    code = (
        "import sys; from metriclab import warm_up\n"
        "t = warm_up.start(environ={}, log=sys.stdout); t.join(120)\n"
        "assert not t.is_alive()\n"
        "missing = [m for m in warm_up.MODULES if m not in sys.modules]\n"
        "assert not missing, missing\n"
        "print('streamlit' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "False"
    assert lines[0].startswith("metriclab: warmed up (imports ")


def test_the_gpu_warm_up_runs_each_gpu_step_of_a_full_size_fit(monkeypatch):
    """On a "GPU" that is NumPy: the neighbours of a query set (the label cost's), the 1-NN score,
    the graph and the subspace eigensolve, each on the device."""
    fake = Backend("gpu", np, scipy.sparse, np.asarray, np.asarray)
    monkeypatch.setattr(array_module, "_gpu_backend", lambda: (fake, ""))
    searched = []
    real = graphs.brute_force_neighbors

    def recorded(*args, **kwargs):
        searched.append((kwargs.get("device"), kwargs.get("query") is not None))
        return real(*args, **kwargs)

    for module in (graphs, scoring):
        monkeypatch.setattr(module, "brute_force_neighbors", recorded)
    solves = []
    real_solve = eigen.smallest_eigenpairs

    def solve(*args, **kwargs):
        solves.append((kwargs.get("device"), kwargs.get("start") is not None))
        return real_solve(*args, **kwargs)

    monkeypatch.setattr(eigen, "smallest_eigenpairs", solve)
    fitted = []
    real_fit = TDL.fit
    monkeypatch.setattr(TDL, "fit", lambda self, *a, **kw: fitted.append(real_fit(self, *a, **kw)))
    assert warm_up.gpu_kernels(points=600) > 0
    # the label cost's query set, the 1-NN score's, then the graph
    assert searched == [("gpu", True), ("gpu", True), ("gpu", False)]
    (model,) = fitted
    assert model.device_ == "gpu" and model.eigen_solver_ == "subspace"
    assert solves == [("gpu", True)]  # a λ move's warm-started solve (the fit's own is imported
    # into spectral by name)


def test_every_server_is_started_through_the_warming_launcher():
    command = worker_command(8601)
    assert command[1:5] == ["-m", "metriclab.ui.shared.serve", "run", command[4]]
    assert command[4].endswith("app.py")


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="needs CuPy and a CUDA device")
def test_on_a_gpu_the_warm_up_runs_cupy():
    assert warm_up.gpu_kernels() > 0


def test_a_broken_gpu_set_up_never_stops_the_server(monkeypatch):
    """CuPy or PyTorch failing at import (a library built for another CUDA): one line says why,
    and the warm-up goes on without the GPU."""
    import io

    def broken():
        raise OSError("libcudnn.so.9: cannot open shared object file")

    monkeypatch.setattr(warm_up, "import_modules", lambda: 0.0)
    monkeypatch.setattr(warm_up, "import_gpu_modules", broken)
    monkeypatch.setattr(warm_up, "gpu_kernels", lambda: pytest.fail("no GPU warm-up without one"))
    log = io.StringIO()
    thread = warm_up.start(environ={}, log=log)
    thread.join(30)
    lines = log.getvalue().splitlines()
    reason = "OSError: libcudnn.so.9: cannot open shared object file"
    assert lines[0] == f"metriclab: GPU warm-up failed ({reason})"
    assert lines[1] == "metriclab: warmed up (imports 0.0 s)"


def test_a_view_on_the_gpu_during_the_warm_up_says_it_waits_for_the_kernels(monkeypatch):
    """While the warm-up compiles the GPU's kernels, a full-size view fitted on the GPU says in
    its progress that it waits for them (a fresh H200's first MNIST view: 12.7-15.0 s then,
    2.6-3.0 s after); a CPU view, and a GPU view after the warm-up, say nothing of it."""
    import io
    import threading

    from metriclab.ui.shared import full_size

    release = threading.Event()
    monkeypatch.setattr(warm_up, "import_modules", lambda: 0.0)
    monkeypatch.setattr(warm_up, "import_gpu_modules", lambda: True)
    monkeypatch.setattr(warm_up, "gpu_kernels", lambda: release.wait(30) and 1.0)
    thread = warm_up.start(environ={}, log=io.StringIO())
    try:
        assert warm_up.warming_gpu()
        assert "compiling its kernels" in full_size._waiting("gpu")
        assert full_size._waiting("cpu") == ""
    finally:
        release.set()
        thread.join(30)
    assert not warm_up.warming_gpu() and full_size._waiting("gpu") == ""
