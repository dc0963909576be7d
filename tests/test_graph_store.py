"""The on-disk array store of the full-size views (issue 41) and what a λ move reuses (issue 42):
round trip, atomic writes, the size bound, clearing, one graph shared by two processes, the label
cost computed once per label set, and warm-started eigensolves equal to cold ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from metriclab import graph_store
from metriclab.eigen import smallest_eigenpairs
from metriclab.graph_store import ArrayStore, SharedGraph, shared_graph
from metriclab.graphs import build_graph, degrees
from metriclab.methods import spectral
from metriclab.methods.spectral import TDL, LaplacianEigenmaps, penalized_problem

ROOT = Path(__file__).resolve().parents[1]


def _mapped(array) -> bool:
    """Whether the array's memory is a mapped file (a view of np.load(mmap_mode="r")), not a copy."""
    import mmap

    while array is not None:
        if isinstance(array, np.memmap | mmap.mmap):
            return True
        array = getattr(array, "base", None)
    return False


def _points(n=300, d=5, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 4, (3, d))
    y = rng.integers(0, 3, n)
    return centres[y] + rng.normal(size=(n, d)), y


def test_round_trip_is_memory_mapped_and_keyed_by_content(tmp_path):
    store = ArrayStore(tmp_path)
    X, _ = _points()
    graph = shared_graph(X, 8, store=store)
    W, width = build_graph(X, "knn", n_neighbors=8)
    assert isinstance(graph, SharedGraph) and graph.store is store
    assert (graph[0] != W).nnz == 0 and graph[1] == width
    again = shared_graph(X, 8, store=store)
    assert store.hits == 1 and store.writes == 1  # built once, read back once
    assert _mapped(again[0].data) and _mapped(again[0].indices) and _mapped(again[0].indptr)
    assert again.digest == graph.digest
    # other data, other parameters: other entries, never a stale hit
    shared_graph(X + 1e-3, 8, store=store)
    shared_graph(X, 9, store=store)
    assert store.writes == 3 and len(store) == 3
    # a meta.json whose key does not match its folder is a miss
    folder = store.path("graph", graph_store.graph_key(graph_store.content_digest(X), 8, None))
    meta = json.loads((folder / "meta.json").read_text())
    meta["key"]["n_neighbors"] = 99
    (folder / "meta.json").write_text(json.dumps(meta))
    shared_graph(X, 8, store=store)
    assert store.writes == 3  # the bad entry was not overwritten (rename onto it fails) ...
    assert store.misses >= 4  # ... and it was read as a miss, the graph rebuilt in memory


def test_write_is_atomic(tmp_path, monkeypatch):
    store = ArrayStore(tmp_path)
    key = {"a": 1}
    real_save = np.save
    calls = []

    def failing_save(path, value, **kwargs):  # the writer dies after its first file
        calls.append(path)
        if len(calls) == 2:
            raise OSError("disk full")
        real_save(path, value, **kwargs)

    monkeypatch.setattr(np, "save", failing_save)
    store.put("thing", key, {"x": np.arange(3), "y": np.ones(2)})
    monkeypatch.setattr(np, "save", real_save)
    assert store.get("thing", key) is None
    assert list(tmp_path.iterdir()) == []  # no half-written entry, no temporary folder left
    # a temporary folder being written by another process is invisible to readers
    (tmp_path / ".tmp-writer").mkdir()
    (tmp_path / ".tmp-writer" / "x.npy").write_bytes(b"partial")
    assert store.get("thing", key) is None and len(store) == 0
    # two writers of one key: the first entry stays whole, the second copy is dropped
    store.put("thing", key, {"x": np.arange(3)})
    store.put("thing", key, {"x": np.arange(5)})
    arrays, _ = store.get("thing", key)
    np.testing.assert_array_equal(arrays["x"], np.arange(3))
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-") is False] == [
        store.path("thing", key).name
    ]


def test_size_bound_evicts_least_recently_used(tmp_path):
    store = ArrayStore(tmp_path, max_bytes=3 * 8000 + 2000)  # about three entries of 8 kB
    for i in range(3):
        store.put("block", {"i": i}, {"x": np.full(1000, float(i))})
        os.utime(store.path("block", {"i": i}) / "meta.json", (1000 + i, 1000 + i))
    assert store.get("block", {"i": 0}) is not None  # used: now the most recent
    store.put("block", {"i": 3}, {"x": np.zeros(1000)})  # over the cap: the oldest unused goes
    assert store.nbytes() <= store.max_bytes
    assert store.get("block", {"i": 1}) is None
    assert store.get("block", {"i": 0}) is not None and store.get("block", {"i": 3}) is not None
    with pytest.raises(ValueError):
        ArrayStore(tmp_path, max_bytes=0)


def test_clear_and_the_cache_command(tmp_path, monkeypatch, capsys):
    from metriclab.__main__ import main

    monkeypatch.setenv("METRICLAB_CACHE", str(tmp_path / "results"))
    monkeypatch.setenv("METRICLAB_GRAPH_CACHE", str(tmp_path / "arrays"))
    store = graph_store.default_store()
    assert store.directory == tmp_path / "arrays"
    X, _ = _points()
    graph = shared_graph(X, 6)
    assert main(["cache", "info"]) == 0
    assert "1 stored arrays (1 graph)" in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0
    assert "removed 1 stored arrays" in capsys.readouterr().out
    assert len(store) == 0
    assert graph[0].sum() > 0  # a mapped graph stays readable after its files are removed
    assert main(["cache", "info"]) == 0
    assert "0 stored arrays" in capsys.readouterr().out


CHILD = textwrap.dedent(
    """
    import json, mmap, sys, time
    import numpy as np
    from metriclab import graph_store
    from metriclab.graphs import build_graph

    builds = []

    def slow_build(*args, **kwargs):
        builds.append(1)
        time.sleep(1.0)  # long enough for the other process to arrive meanwhile
        return build_graph(*args, **kwargs)

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    store = graph_store.ArrayStore(sys.argv[1])
    W = graph_store.shared_graph(X, 7, store=store, build=slow_build)[0]
    data = store.path("graph", graph_store.graph_key(graph_store.content_digest(X), 7, None))
    maps = open("/proc/self/maps").read()
    base = W.data
    while base is not None and not isinstance(base, mmap.mmap):
        base = getattr(base, "base", None)
    print(json.dumps({"builds": len(builds), "mapped": str(data / "data.npy") in maps,
                      "memmap": base is not None, "sum": float(W.sum())}))
    """
)


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs Linux /proc")
def test_two_processes_build_once_and_map_the_same_file(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    children = [
        subprocess.Popen(
            [sys.executable, str(script), str(tmp_path / "store")],
            stdout=subprocess.PIPE,
            env=env,
            cwd=ROOT,
            text=True,
        )
        for _ in range(2)
    ]
    reports = [json.loads(child.communicate(timeout=120)[0]) for child in children]
    assert sum(r["builds"] for r in reports) == 1  # one built it, the other waited and read it
    assert all(r["mapped"] and r["memmap"] for r in reports)  # both map the stored file
    assert reports[0]["sum"] == reports[1]["sum"]


def test_label_cost_is_computed_once_per_label_set(monkeypatch):
    graph_store.clear_memory()
    calls = []
    real = spectral.cost_matrix

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(spectral, "cost_matrix", counting)
    X, y = _points(200)
    labels = np.where(np.arange(200) % 5 == 0, y, -1)
    fits = [TDL(lam=lam, n_neighbors=8).fit(X, labels) for lam in (1.0, 4.0, 16.0)]
    assert len(calls) == 1  # λ moves reuse the label set's cost
    expected = real(X, labels, 5).toarray()
    for fit in fits:
        np.testing.assert_allclose(fit.cost_.toarray(), expected)
    other = labels.copy()
    other[1] = y[1]  # one more labelled point: a new label set, a new cost
    TDL(lam=1.0, n_neighbors=8).fit(X, other)
    TDL(lam=1.0, n_neighbors=8, k=3).fit(X, labels)  # another k, another cost
    assert len(calls) == 3
    graph_store.clear_memory()


def _frozen(a):
    a = np.array(a)
    a.flags.writeable = False
    return a


def test_facts_are_kept_for_a_read_only_array_only_while_it_lives():
    """`array_fact`: a λ move on a read-only data set does not hash its labelled rows or check its
    values finite again; any other array is computed every time, and a dead array is forgotten."""
    import gc

    calls = []

    def fact():
        calls.append(1)
        return len(calls)

    X = _frozen(np.arange(12.0).reshape(4, 3))
    assert graph_store.array_fact(X, "n", fact) == graph_store.array_fact(X, "n", fact) == 1
    writable = np.arange(12.0).reshape(4, 3)
    view = X[1:]  # a view: its owner's content decides (read-only here)
    assert graph_store.array_fact(writable, "n", fact) == 2
    assert graph_store.array_fact(writable, "n", fact) == 3
    assert graph_store.array_fact(view, "n", fact) == graph_store.array_fact(view, "n", fact) == 4
    assert graph_store.array_fact(X, "other", fact) == 5  # one fact per name
    shut = writable[1:]
    shut.flags.writeable = False  # a read-only view of an array that can still change
    assert graph_store.array_fact(shut, "n", fact) == 6
    assert graph_store.array_fact(shut, "n", fact) == 7
    key = id(X)
    del X, view
    gc.collect()
    assert key not in graph_store._facts


def test_a_stored_graph_is_frozen_and_its_pieces_are_found_once_over_lambda_moves(
    tmp_path, monkeypatch
):
    """The store's graph (memory-mapped read-only) keeps the facts about it: TDL keeps that very
    matrix as `affinity_`, so the page's graph check over a λ move does not look for the graph's
    pieces and cut-off points again (50 ms on MNIST's graph); an in-memory graph is checked every
    time, and a CSR matrix whose arrays can change is not frozen."""
    from metriclab.ui.shared import compute

    X, y = _points(300)
    labels = np.where(np.arange(300) % 4 == 0, y, -1)
    store = graph_store.ArrayStore(tmp_path)
    shared = graph_store.shared_graph(X, 8, None, store=store)
    W = shared[0]
    assert graph_store.is_frozen(W) and not graph_store.is_frozen(W.copy())
    assert graph_store.is_frozen(W.data) and not graph_store.is_frozen(sp.csr_matrix(W.toarray()))
    calls = []
    real = compute.unlinked_points
    monkeypatch.setattr(compute, "unlinked_points", lambda M: calls.append(1) or real(M))
    checks = []
    for lam in (1.0, 10.0, 100.0):
        fitted = TDL(lam=lam, n_neighbors=8, k=3).fit(X, labels, graph=shared)
        assert fitted.affinity_ is W
        checks.append(compute.graph_check(fitted))
    assert len(calls) == 1 and checks[0] == checks[1] == checks[2]
    assert (checks[0].unlinked, checks[0].pieces) == real(W)
    assert checks[0].cut_off == compute.cut_off_points(W)
    alone = TDL(lam=1.0, n_neighbors=8, k=3).fit(X, labels)  # its own graph, in memory
    compute.graph_check(alone)
    compute.graph_check(alone)
    assert len(calls) == 3
    graph_store.clear_memory()


@pytest.mark.parametrize("kind", ["unnormalized", "symmetric", "random_walk"])
def test_a_lambda_move_on_a_stored_graph_derives_its_matrices_once(tmp_path, monkeypatch, kind):
    """Over λ moves on the store's graph and label cost, the graph's Laplacian and degrees and
    the cost's Laplacian C' are computed once and kept read-only (they do not depend on λ); the
    eigenpairs equal those of a fit with its own graph in memory."""
    graph_store.clear_memory()
    X, y = _points(300)
    labels = np.where(np.arange(300) % 4 == 0, y, -1)
    shared = graph_store.shared_graph(X, 8, None, store=graph_store.ArrayStore(tmp_path))
    params = {"n_neighbors": 8, "k": 3, "laplacian": kind}
    calls = []
    for name in ("laplacian", "degrees", "cost_laplacian"):
        real = getattr(spectral, name)
        monkeypatch.setattr(
            spectral, name, lambda *a, real=real, name=name: calls.append(name) or real(*a)
        )
    fitted = {
        lam: TDL(lam=lam, **params).fit(X, labels, graph=shared) for lam in (1.0, 10.0, 100.0)
    }
    # C' for the fit, and the other-class part's for the bound of λ_min: once, and on each fit
    # for the random walk's (its bound scales C' by the degrees)
    bounds = 3 if kind == "random_walk" else 1
    assert sorted(calls) == ["cost_laplacian"] * (1 + bounds) + ["degrees", "laplacian"]
    for lam, shared_fit in fitted.items():
        alone = TDL(lam=lam, **params).fit(X, labels)  # its own graph, in memory
        np.testing.assert_allclose(shared_fit.eigenvalues_, alone.eigenvalues_, rtol=1e-9)
    assert not shared_fit.degrees_.flags.writeable  # shared: no caller may change it
    graph_store.clear_memory()


def test_labels_digest_is_kept_and_still_tells_label_sets_and_rows_apart(monkeypatch):
    X, y = _points(300)
    labels = np.where(np.arange(300) % 4 == 0, y, -1)
    frozen = _frozen(X)
    digest = graph_store.labels_digest(frozen, labels)
    assert graph_store.labels_digest(X, labels) == digest  # the same content, kept or not
    hashed = []
    real = graph_store.content_digest
    monkeypatch.setattr(
        graph_store, "content_digest", lambda *a: hashed.append(a[0].size) or real(*a)
    )
    assert graph_store.labels_digest(frozen, labels) == digest
    assert max(hashed) < X.size / 4  # the labelled rows were not hashed again
    monkeypatch.undo()
    other = labels.copy()
    other[1] = y[1]
    assert graph_store.labels_digest(frozen, other) != digest
    moved = X.copy()
    moved[0, 0] += 1e-9  # a labelled point's row
    assert graph_store.labels_digest(_frozen(moved), labels) != digest
    moved = X.copy()
    moved[1, 0] += 1.0  # an unlabelled point's row: not what the cost depends on
    assert graph_store.labels_digest(_frozen(moved), labels) == digest


def test_a_read_only_data_set_is_checked_finite_once_and_a_non_finite_one_still_refused():
    X, y = _points(200)
    labels = np.where(np.arange(200) % 5 == 0, y, -1)
    frozen = _frozen(X)
    TDL(lam=1.0, n_neighbors=8).fit(frozen, labels)
    assert graph_store._facts[id(frozen)][1]["finite"] is True
    bad = X.copy()
    bad[3, 1] = np.nan
    bad = _frozen(bad)
    for _ in range(2):  # refused each time: a failed check is not kept as a pass
        with pytest.raises(ValueError, match="NaN"):
            TDL(lam=1.0, n_neighbors=8).fit(bad, labels)


def _tdl_problem(n=2500, lam=8.0):
    X, y = _points(n, d=6, seed=1)
    labels = np.where(np.arange(n) % 10 == 0, y, -1)
    W, _ = build_graph(X, "knn", n_neighbors=10)
    C = spectral.cost_laplacian(spectral.cost_matrix(X, labels, 5))
    S, _, trivial = penalized_problem(C, W, degrees(W), lam, "unnormalized")
    return S, trivial


def test_warm_start_gives_the_cold_eigenpairs():
    S_before, trivial = _tdl_problem(lam=8.0)
    S, _ = _tdl_problem(lam=6.0)
    before = smallest_eigenpairs(S_before, 4, trivial)
    cold = smallest_eigenpairs(S, 4, trivial)
    warm = smallest_eigenpairs(S, 4, trivial, start=before.vectors)
    assert warm.solver == f"{cold.solver}+warm" and "+warm" not in cold.solver
    assert warm.residual < 1e-12
    np.testing.assert_allclose(warm.values, cold.values, rtol=1e-9, atol=1e-9)
    cosines = np.abs(np.sum(warm.vectors * cold.vectors, axis=0))
    np.testing.assert_allclose(cosines, 1.0, atol=1e-8)
    assert np.abs(trivial @ warm.vectors).max() < 1e-10  # still ⊥ the trivial vector
    # a start that is no help (random) still converges to the same pairs
    rng = np.random.default_rng(3)
    other = smallest_eigenpairs(S, 4, trivial, start=rng.standard_normal((S.shape[0], 4)))
    np.testing.assert_allclose(other.values, cold.values, rtol=1e-9, atol=1e-9)


def test_a_lambda_move_on_a_shared_graph_is_warm_started_and_stored(tmp_path):
    graph_store.clear_memory()
    X, y = _points(2000, d=6, seed=2)
    labels = np.where(np.arange(2000) % 10 == 0, y, -1)
    store = ArrayStore(tmp_path)
    graph = shared_graph(X, 10, store=store)
    first = TDL(lam=8.0, n_components=3).fit(X, labels, graph=graph)
    moved = TDL(lam=6.0, n_components=3).fit(X, labels, graph=graph)
    assert "+warm" not in first.eigen_solver_ and moved.eigen_solver_.endswith("+warm")
    cold = TDL(lam=6.0, n_components=3).fit(X, labels, graph=(graph[0], graph[1]))
    np.testing.assert_allclose(moved.eigenvalues_, cold.eigenvalues_, rtol=1e-9)
    np.testing.assert_allclose(np.abs(moved.embedding_), np.abs(cold.embedding_), atol=1e-6)
    # another process (a fresh graph object on the same store) reads the solved problems back
    graph_store.clear_memory()
    again = shared_graph(X, 10, store=store)
    writes = store.writes
    reread = TDL(lam=6.0, n_components=3).fit(X, labels, graph=again)
    assert store.writes == writes  # nothing computed: graph, cost and eigenpairs were stored
    np.testing.assert_array_equal(reread.embedding_, moved.embedding_)
    le = LaplacianEigenmaps(n_components=3).fit(X, graph=again)
    assert store.writes == writes + 1  # the baseline's eigenpairs, stored once ...
    le_again = LaplacianEigenmaps(n_components=3).fit(X, graph=shared_graph(X, 10, store=store))
    assert store.writes == writes + 1  # ... and read back
    np.testing.assert_array_equal(le.embedding_, le_again.embedding_)
    assert sp.issparse(le.affinity_)
    graph_store.clear_memory()


def test_a_large_one_nn_score_is_computed_once_per_machine(tmp_path, monkeypatch):
    from metriclab.evaluation import scoring

    monkeypatch.setenv("METRICLAB_GRAPH_CACHE", str(tmp_path))
    monkeypatch.setattr(scoring, "STORED_MIN_WORK", 1000.0)  # MNIST's baseline is 1.8e11
    calls = []
    real = scoring._knn_accuracy

    def counting(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(scoring, "_knn_accuracy", counting)
    X, y = _points(300)
    train = np.arange(300) % 4 == 0
    first = scoring.knn_accuracy(X[train], y[train], X[~train], y[~train])
    again = scoring.knn_accuracy(X[train], y[train], X[~train], y[~train])
    assert calls == [1] and again == first == real(X[train], y[train], X[~train], y[~train], 1)
    assert graph_store.default_store().info()["kinds"] == {"knn-accuracy": 1}
    other = scoring.knn_accuracy(X[train], y[train], X[~train] + 0.5, y[~train])  # other data
    assert len(calls) == 2 and isinstance(other, float)
    small = scoring.knn_accuracy(X[:10], y[:10], X[10:20], y[10:20])  # below the bound: not kept
    assert len(calls) == 3 and len(graph_store.default_store()) == 2 and 0 <= small <= 1
