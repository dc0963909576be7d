"""The GPU path (issue 42), tested where CI runs it: with NumPy as the array module.

The Chebyshev-filtered subspace iteration and the blocked brute-force kNN search are written once
against `metriclab.array_module.Backend`; here they run on NumPy and are compared with SciPy's
ARPACK and scikit-learn's exact search. The `device` parameter is checked on the CPU, refused
with the extra's name where there is no GPU, and followed through a fit by a "GPU" backend that
is NumPy in disguise (so every line of the device plumbing runs in CI). The tests marked `gpu`
run CuPy itself and are skipped where it cannot import or sees no device.
"""

from types import SimpleNamespace

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh
from sklearn.neighbors import NearestNeighbors

import metriclab.array_module as array_module
import metriclab.eigen as eigen
import metriclab.graphs as graphs
import metriclab.methods.spectral as spectral
from metriclab import TDL, LaplacianEigenmaps
from metriclab.array_module import GPU_EXTRA, Backend, gpu_available, resolve_device
from metriclab.eigen import smallest_eigenpairs
from metriclab.evaluation import labeled_mask, partial_labels
from metriclab.graphs import brute_force_neighbors, knn_graph, laplacian

needs_gpu = pytest.mark.skipif(not gpu_available(), reason="needs CuPy and a CUDA device")


def _clusters(n, dim=6, centres=4, seed=0, spread=4.0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % centres
    return rng.standard_normal((n, dim)) + rng.uniform(-spread, spread, (centres, dim))[y], y


def _graph_laplacian(X, k=8):
    W, _ = knn_graph(X, n_neighbors=k)
    return laplacian(W), W


def _eigsh_reference(S, trivial, k):
    """ARPACK (scipy's eigsh, which='SA') on P S P + σ t tᵀ: the trivial vector moved to the top."""
    n = S.shape[0]
    S = sp.csr_matrix(S)
    sigma = 2.0 * float(abs(S).sum(axis=1).max()) + 1.0
    P = sp.identity(n) - sp.csr_matrix(np.outer(trivial, trivial))
    A = P @ S @ P + sigma * sp.csr_matrix(np.outer(trivial, trivial))
    v0 = np.random.default_rng(1).uniform(-1, 1, n)
    values, vectors = eigsh(A, k=k, which="SA", tol=0, v0=v0)
    order = np.argsort(values)
    return values[order], vectors[:, order]


def _principal_angles_agree(values, A, B, tol=1e-6):
    """A's and B's columns span the same eigenspaces: for every group of (numerically) equal
    eigenvalues, the principal angles between the two spans are all 0 (cosines 1)."""
    start = 0
    while start < len(values):
        end = start + 1
        while end < len(values) and abs(values[end] - values[start]) < 1e-8:
            end += 1
        cosines = scipy.linalg.subspace_angles(A[:, start:end], B[:, start:end])
        assert np.max(np.abs(cosines)) < tol, (start, end, cosines)
        start = end


def _subspace(S, k, trivial, **kwargs):
    return smallest_eigenpairs(S, k, trivial, solver="subspace", **kwargs)


# --------------------------------------------------------------------------------------------
# The xp eigensolver, on NumPy, against ARPACK
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [2, 6])
def test_subspace_iteration_on_numpy_equals_arpack_on_a_laplacian(k):
    X, _ = _clusters(600)
    L, _ = _graph_laplacian(X)
    trivial = np.ones(L.shape[0]) / np.sqrt(L.shape[0])
    result = _subspace(L, k, trivial)
    values, vectors = _eigsh_reference(L, trivial, k)
    assert result.solver == "subspace"
    np.testing.assert_allclose(result.values, values, rtol=0, atol=1e-8)
    _principal_angles_agree(values, result.vectors, vectors)
    assert result.residual < 1e-10
    assert np.abs(trivial @ result.vectors).max() < 1e-10


def test_subspace_iteration_keeps_a_degenerate_eigenspace_up_to_rotation():
    # three far clusters: three 0 eigenvalues, one of them the trivial vector's; the other two
    # span a 2-D eigenspace that any rotation of is a valid answer
    X, _ = _clusters(450, centres=3, spread=60.0, seed=3)
    L, W = _graph_laplacian(X, k=6)
    assert sp.csgraph.connected_components(W)[0] == 3
    trivial = np.ones(L.shape[0]) / np.sqrt(L.shape[0])
    result = _subspace(L, 4, trivial)
    values, vectors = _eigsh_reference(L, trivial, 4)
    np.testing.assert_allclose(result.values, values, rtol=0, atol=1e-8)
    assert np.abs(result.values[:2]).max() < 1e-8  # the two non-trivial zeros
    _principal_angles_agree(values, result.vectors, vectors)


def test_subspace_iteration_on_tdl_s_indefinite_matrix_equals_arpack():
    X, y = _clusters(500)
    labels = partial_labels(y, labeled_mask(y, fraction=0.3, seed=0))
    tdl = TDL(n_components=5, lam=4.0, eigen_solver="dense").fit(X, labels)
    S, trivial = tdl._S, tdl._trivial
    result = _subspace(S, 5, trivial)
    values, vectors = _eigsh_reference(S, trivial, 5)
    assert values[0] < 0  # the label cost makes S indefinite
    np.testing.assert_allclose(result.values, values, rtol=0, atol=1e-8)
    np.testing.assert_allclose(result.values, tdl.eigenvalues_, rtol=0, atol=1e-8)
    _principal_angles_agree(values, result.vectors, vectors)


def test_subspace_iteration_warm_started_from_another_lambda_gives_the_same_pairs():
    X, y = _clusters(500)
    labels = partial_labels(y, labeled_mask(y, fraction=0.3, seed=0))
    before = TDL(n_components=4, lam=8.0, eigen_solver="dense").fit(X, labels)
    after = TDL(n_components=4, lam=4.0, eigen_solver="dense").fit(X, labels)
    cold = _subspace(after._S, 4, after._trivial)
    warm = _subspace(after._S, 4, after._trivial, start=before.embedding_)
    assert warm.solver == "subspace+warm"
    np.testing.assert_allclose(warm.values, cold.values, rtol=0, atol=1e-8)
    np.testing.assert_allclose(warm.values, after.eigenvalues_, rtol=0, atol=1e-8)
    _principal_angles_agree(cold.values, warm.vectors, cold.vectors)


@pytest.mark.parametrize("device", ["cpu", "gpu"])
def test_the_subspace_iteration_s_residual_is_its_last_step_s_not_measured_again(
    device, monkeypatch
):
    """The iteration stops on the residual of its last Rayleigh-Ritz step: that is the result's
    residual, with no second n × k product to measure it again (12-26 ms of a λ move on an H200;
    issue 42), and it equals `relative_residual` of the pairs returned (in the caller's order too,
    past the reordering on the CPU)."""
    if device == "gpu":
        _numpy_gpu(monkeypatch)
    monkeypatch.setattr(eigen, "REORDER_MIN_POINTS", 100)
    X, y = _clusters(500)
    labels = partial_labels(y, labeled_mask(y, fraction=0.3, seed=0))
    tdl = TDL(n_components=4, lam=4.0, eigen_solver="dense").fit(X, labels)
    measured = []
    real = eigen.relative_residual
    monkeypatch.setattr(
        eigen, "relative_residual", lambda *a, **k: measured.append(1) or real(*a, **k)
    )
    result = _subspace(tdl._S, 4, tdl._trivial, device=device)
    assert result.solver == "subspace" and measured == []
    again = real(tdl._S, tdl._trivial, result.values, result.vectors)
    assert result.residual < 1e-10
    np.testing.assert_allclose(result.residual, again, rtol=1e-3, atol=1e-15)
    _subspace(tdl._S, 4, tdl._trivial, device=device, tol=1e-300)  # falls back: measured there
    assert measured == [1]


def test_subspace_iteration_that_does_not_converge_falls_back_to_filtered_lanczos(monkeypatch):
    X, _ = _clusters(400)
    L, _ = _graph_laplacian(X)
    trivial = np.ones(L.shape[0]) / np.sqrt(L.shape[0])
    monkeypatch.setattr(eigen, "SUBSPACE_MAX_STEPS", 1)
    result = _subspace(L, 3, trivial)
    assert result.solver == "filtered" and result.residual < 1e-10


def test_the_cpu_default_path_is_unchanged_by_the_new_solver():
    X, _ = _clusters(2000)
    L, _ = _graph_laplacian(X)
    trivial = np.ones(L.shape[0]) / np.sqrt(L.shape[0])
    assert smallest_eigenpairs(L, 2, trivial).solver == "filtered"  # "auto" on the CPU
    assert smallest_eigenpairs(L, 2, trivial, device="cpu").solver == "filtered"


# --------------------------------------------------------------------------------------------
# The xp kNN search, on NumPy, against scikit-learn's exact graph
# --------------------------------------------------------------------------------------------


def test_brute_force_neighbors_on_numpy_equal_scikit_learn_s_exact_search():
    X, _ = _clusters(700, dim=9)
    X += 100.0  # far from the origin: the expansion ‖x‖² - 2x·y + ‖y‖² alone would lose digits
    distances, indices = brute_force_neighbors(X, 12)
    reference = NearestNeighbors(n_neighbors=12, algorithm="kd_tree").fit(X).kneighbors()
    np.testing.assert_array_equal(indices, reference[1])
    np.testing.assert_allclose(distances, reference[0], rtol=1e-12)
    queries = X[:50] + 0.1
    distances, indices = brute_force_neighbors(X, 3, query=queries)
    reference = NearestNeighbors(n_neighbors=3).fit(X).kneighbors(queries)
    np.testing.assert_array_equal(indices, reference[1])


def test_brute_force_in_small_blocks_is_the_same_search(monkeypatch):
    X, _ = _clusters(300)
    whole = brute_force_neighbors(X, 5)
    monkeypatch.setattr(graphs, "BRUTE_BLOCK_ENTRIES", 7 * 300)  # 7 query rows per block
    blocked = brute_force_neighbors(X, 5)
    np.testing.assert_array_equal(whole[1], blocked[1])
    np.testing.assert_array_equal(whole[0], blocked[0])


def test_brute_force_never_returns_a_point_as_its_own_neighbour_even_with_duplicates():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [5.0, 5.0]])
    distances, indices = brute_force_neighbors(X, 2)
    assert all(i not in row for i, row in enumerate(indices))
    assert indices[0, 0] == 1 and distances[0, 0] == 0.0


# --------------------------------------------------------------------------------------------
# device: the parameter, its refusal, and the plumbing (a NumPy "GPU")
# --------------------------------------------------------------------------------------------


def _no_gpu(monkeypatch):
    monkeypatch.setattr(array_module, "_gpu_backend", lambda: (None, "CuPy is not installed"))


def _numpy_gpu(monkeypatch):
    """A GPU backend that is NumPy: the device plumbing runs, the arithmetic is the CPU's."""
    fake = Backend("gpu", np, scipy.sparse, np.asarray, np.asarray)
    monkeypatch.setattr(array_module, "_gpu_backend", lambda: (fake, ""))


@pytest.mark.parametrize("cls", [TDL, LaplacianEigenmaps])
def test_device_auto_without_a_gpu_fits_on_the_cpu_as_before(cls, monkeypatch):
    _no_gpu(monkeypatch)
    X, y = _clusters(120)
    labels = partial_labels(y, labeled_mask(y, fraction=0.3, seed=0))
    model = cls().fit(X, labels)
    assert model.device == "auto" and model.device_ == "cpu"
    cpu = cls(device="cpu").fit(X, labels)
    np.testing.assert_array_equal(model.embedding_, cpu.embedding_)


@pytest.mark.parametrize("cls", [TDL, LaplacianEigenmaps])
def test_device_gpu_without_cupy_is_one_line_naming_the_extra(cls, monkeypatch):
    _no_gpu(monkeypatch)
    X, _ = _clusters(60)
    with pytest.raises(ValueError) as error:
        cls(device="gpu").fit(X)
    message = str(error.value)
    assert message.startswith("device='gpu'") and GPU_EXTRA in message
    assert "CuPy is not installed" in message and "\n" not in message
    with pytest.raises(ValueError, match=r"^device must be one of \['auto', 'cpu', 'gpu'\]"):
        cls(device="cuda").fit(X)


def test_auto_resolves_to_the_gpu_where_one_is_usable(monkeypatch):
    _numpy_gpu(monkeypatch)
    assert resolve_device("auto") == "gpu" and resolve_device("cpu") == "cpu"
    _no_gpu(monkeypatch)
    assert resolve_device("auto") == "cpu"


def _searches(monkeypatch, module) -> list:
    """The `device` of each call of `module`'s brute_force_neighbors, recorded as it runs."""
    searched = []
    real = module.brute_force_neighbors
    monkeypatch.setattr(
        module,
        "brute_force_neighbors",
        lambda *a, **kw: searched.append(kw.get("device")) or real(*a, **kw),
    )
    return searched


@pytest.mark.parametrize("laplacian_kind", ["unnormalized", "symmetric"])
def test_a_fit_on_the_gpu_backend_equals_the_cpu_fit(laplacian_kind, monkeypatch):
    _numpy_gpu(monkeypatch)
    monkeypatch.setattr(eigen, "DENSE_MAX_POINTS", 100)  # the sparse path at test size
    searched = _searches(monkeypatch, graphs)
    X, y = _clusters(400)
    labels = partial_labels(y, labeled_mask(y, fraction=0.3, seed=0))
    settings = {"n_components": 3, "lam": 4.0, "laplacian": laplacian_kind}
    gpu = TDL(device="gpu", **settings).fit(X, labels)
    cpu = TDL(device="cpu", **settings).fit(X, labels)
    assert gpu.device_ == "gpu" and cpu.device_ == "cpu"
    assert searched == ["gpu"]  # the graph by brute force on the device, once
    assert gpu.eigen_solver_ == "subspace" and cpu.eigen_solver_ != "subspace"
    assert (gpu.affinity_ != cpu.affinity_).nnz == 0  # the same exact graph
    np.testing.assert_allclose(gpu.eigenvalues_, cpu.eigenvalues_, rtol=0, atol=1e-8)
    _principal_angles_agree(cpu.eigenvalues_, gpu.embedding_, cpu.embedding_)
    assert gpu.eigen_residual_ < 1e-10


def test_without_self_drops_each_row_s_own_index_once_even_behind_a_duplicate():
    X = np.array([[0.0], [0.0], [0.0], [1.0], [3.0], [3.0]])  # three copies, then a pair
    distances, indices = NearestNeighbors(n_neighbors=3).fit(X).kneighbors(X)  # self included
    got_d, got_i = graphs.without_self(distances, indices)
    want_d, want_i = NearestNeighbors(n_neighbors=2).fit(X).kneighbors()  # self excluded
    assert not (got_i == np.arange(6)[:, None]).any()
    np.testing.assert_allclose(got_d, want_d)
    np.testing.assert_array_equal(np.sort(got_i[:3], axis=1), np.sort(want_i[:3], axis=1))


def _direct_residual(S, trivial, values, vectors):
    """The relative residual written out with a dense P (the definition, no shortcut)."""
    P = np.eye(S.shape[0]) - np.outer(trivial, trivial)
    V = P @ vectors
    R = P @ (S.toarray() @ V) - V * values
    scale = np.abs(S.toarray()).sum(axis=1).max()
    return float((np.linalg.norm(R, axis=0) / np.linalg.norm(V, axis=0)).max() / scale)


def test_the_residual_is_computed_where_the_solve_ran_and_equals_its_definition(monkeypatch):
    """Issue 42: the residual of a GPU solve is computed on the device (on the host it was an
    n × k sparse product on one core: 0.36 s for all of MNIST, 60 vectors), and on the CPU by the
    row-block product on threads: both equal the definition."""
    monkeypatch.setattr(eigen, "PARALLEL_MIN_NNZ", 100)  # the threaded row blocks at test size
    X, y = _clusters(400)
    labels = partial_labels(y, labeled_mask(y, fraction=0.3, seed=0))
    tdl = TDL(n_components=3, lam=4.0, device="cpu").fit(X, labels)
    S, t = sp.csr_matrix(tdl._S), tdl._trivial
    noisy = tdl.embedding_ + 1e-4 * np.random.default_rng(0).standard_normal((400, 3))
    want = _direct_residual(S, t, tdl.eigenvalues_, noisy)
    got_cpu = eigen.relative_residual(S, t, tdl.eigenvalues_, noisy)
    copies = []
    copy = SimpleNamespace(csr_matrix=lambda M: copies.append(1) or sp.csr_matrix(M))
    fake = Backend("gpu", np, copy, np.asarray, np.asarray)  # records the copy to the "device"
    got_device = eigen.relative_residual(S, t, tdl.eigenvalues_, noisy, fake)
    assert copies, "the residual's product did not run on the backend's sparse module"
    assert 1e-6 < want and got_cpu == pytest.approx(want, rel=1e-12)
    assert got_device == pytest.approx(want, rel=1e-12)


def _cost_search(monkeypatch, threshold):
    """The device of each search of TDL's label cost neighbours, at a GPU_COST_MIN_WORK of
    `threshold` (the CPU's own search leaves no record)."""
    monkeypatch.setattr(spectral, "GPU_COST_MIN_WORK", threshold)
    return _searches(monkeypatch, spectral)


def test_a_gpu_fit_finds_the_label_cost_neighbours_on_the_device(monkeypatch):
    """Issue 42: a new split's label cost is the distances among the labelled points (all of
    MNIST with the app's 10 %: 3.8e10 multiply-adds, 1.5 s on two CPU cores): a GPU fit finds
    those neighbours on the device from GPU_COST_MIN_WORK, with the CPU's cost matrix; below it,
    and on the CPU, the CPU searches."""
    _numpy_gpu(monkeypatch)
    X, y = _clusters(400)
    labels = partial_labels(y, labeled_mask(y, fraction=0.3, seed=0))
    settings = {"n_components": 3, "lam": 4.0}
    searched = _cost_search(monkeypatch, 1.0)
    gpu = TDL(device="gpu", **settings).fit(X, labels)
    assert searched and set(searched) == {"gpu"}
    searched.clear()
    cpu = TDL(device="cpu", **settings).fit(X, labels)
    assert searched == [] and (gpu.cost_ != cpu.cost_).nnz == 0
    searched = _cost_search(monkeypatch, 1e9)  # 120² × 6 is below the default
    TDL(device="gpu", k=4, **settings).fit(X, labels)  # another k: a new cost, not the memo's
    assert searched == []


def test_the_gpu_solves_in_the_caller_s_order_and_the_cpu_in_bandwidth_order(monkeypatch):
    """Reverse Cuthill-McKee pays on the CPU's products; on the GPU its host work cost more than
    it saved (issue 42): the subspace iteration on the GPU backend skips it, with the same pairs."""
    orders = []
    real = eigen.reverse_cuthill_mckee
    monkeypatch.setattr(
        eigen, "reverse_cuthill_mckee", lambda *a, **k: orders.append(1) or real(*a, **k)
    )
    monkeypatch.setattr(eigen, "REORDER_MIN_POINTS", 100)
    X, y = _clusters(600)
    labels = partial_labels(y, labeled_mask(y, fraction=0.3, seed=0))
    tdl = TDL(n_components=4, lam=4.0, eigen_solver="dense", device="cpu").fit(X, labels)
    on_cpu = _subspace(tdl._S, 4, tdl._trivial, device="cpu")
    assert orders == [1]
    _numpy_gpu(monkeypatch)
    on_gpu = _subspace(tdl._S, 4, tdl._trivial, device="gpu")
    assert orders == [1], "the GPU path reordered the problem on the host"
    for found in (on_cpu, on_gpu):
        np.testing.assert_allclose(found.values, tdl.eigenvalues_, rtol=0, atol=1e-9)
        _principal_angles_agree(tdl.eigenvalues_, found.vectors, tdl.embedding_)


def test_a_warm_start_block_keeps_the_previous_vectors_and_fills_the_rest_seeded():
    rng = np.random.default_rng(3)
    warm = rng.standard_normal((50, 4))
    block = eigen._start_block(50, 7, seed=0, start=warm)
    assert block.shape == (50, 7)
    np.testing.assert_array_equal(block[:, :4], warm)
    cold = eigen._start_block(50, 7, seed=0)
    np.testing.assert_array_equal(cold, 2.0 * np.random.default_rng(0).random((50, 7)) - 1.0)
    np.testing.assert_array_equal(block[:, 4:], cold[:, 4:])  # the same seeded columns
    assert np.all(np.abs(cold) <= 1.0) and np.linalg.matrix_rank(cold) == 7
    nan_start = np.full((50, 4), np.nan)  # not finite: ignored, a cold block
    np.testing.assert_array_equal(eigen._start_block(50, 7, seed=0, start=nan_start), cold)


def test_absolute_row_sum_norm_equals_the_row_sums_of_abs_s():
    import scipy.sparse as sp

    rng = np.random.default_rng(4)
    dense = rng.normal(size=(40, 40)) * (rng.random((40, 40)) < 0.1)
    dense[[0, 7, 39]] = 0.0  # empty rows, the first and the last among them
    for S in (
        sp.csr_matrix(dense),
        sp.csc_matrix(dense),
        sp.coo_matrix(dense),
        sp.csr_matrix((4, 4)),
    ):
        assert eigen.absolute_row_sum_norm(S) == float(np.asarray(abs(S).sum(axis=1)).max())
    assert eigen.absolute_row_sum_norm(sp.csr_matrix(dense)) == pytest.approx(
        np.abs(dense).sum(axis=1).max(), rel=1e-14
    )


# --------------------------------------------------------------------------------------------
# On a real GPU (skipped where CuPy cannot import or sees no device)
# --------------------------------------------------------------------------------------------


@pytest.mark.gpu
@needs_gpu
def test_cupy_subspace_iteration_equals_the_numpy_one():
    X, y = _clusters(3000)
    labels = partial_labels(y, labeled_mask(y, fraction=0.2, seed=0))
    tdl = TDL(n_components=4, lam=16.0, eigen_solver="filtered", device="cpu").fit(X, labels)
    on_gpu = _subspace(tdl._S, 4, tdl._trivial, device="gpu")
    np.testing.assert_allclose(on_gpu.values, tdl.eigenvalues_, rtol=0, atol=1e-8)
    assert on_gpu.residual < 1e-10


@pytest.mark.gpu
@needs_gpu
def test_cupy_residual_equals_the_cpu_s():
    X, y = _clusters(2000)
    labels = partial_labels(y, labeled_mask(y, fraction=0.2, seed=0))
    tdl = TDL(n_components=4, lam=16.0, device="cpu").fit(X, labels)
    noisy = tdl.embedding_ + 1e-4 * np.random.default_rng(0).standard_normal((2000, 4))
    args = (tdl._S, tdl._trivial, tdl.eigenvalues_, noisy)
    gpu = eigen.relative_residual(*args, array_module.backend("gpu"))
    assert gpu == pytest.approx(eigen.relative_residual(*args), rel=1e-10)


@pytest.mark.gpu
@needs_gpu
def test_cupy_label_cost_equals_the_cpu_s(monkeypatch):
    X, y = _clusters(2000, dim=20)
    labels = partial_labels(y, labeled_mask(y, fraction=0.5, seed=0))
    searched = _cost_search(monkeypatch, 1.0)
    gpu = TDL(n_components=4, lam=16.0, device="gpu").fit(X, labels)
    cpu = TDL(n_components=4, lam=16.0, device="cpu").fit(X, labels)
    assert searched and set(searched) == {"gpu"}
    assert (gpu.cost_ != cpu.cost_).nnz == 0


@pytest.mark.gpu
@needs_gpu
def test_cupy_brute_force_and_a_gpu_fit_equal_the_cpu_s():
    X, y = _clusters(3000, dim=20)
    distances, indices = brute_force_neighbors(X, 10, device="gpu")
    reference = NearestNeighbors(n_neighbors=10).fit(X).kneighbors()
    np.testing.assert_array_equal(indices, reference[1])
    np.testing.assert_allclose(distances, reference[0], rtol=1e-10)
    gpu = LaplacianEigenmaps(n_components=3, device="gpu").fit(X)
    cpu = LaplacianEigenmaps(n_components=3, device="cpu").fit(X)
    assert gpu.device_ == "gpu" and gpu.eigen_solver_ == "subspace"
    np.testing.assert_allclose(gpu.eigenvalues_, cpu.eigenvalues_, rtol=0, atol=1e-8)
    _principal_angles_agree(cpu.eigenvalues_, gpu.embedding_, cpu.embedding_)


@pytest.mark.gpu
@needs_gpu
def test_the_gpu_kd_tree_graph_equals_scikit_learn_s_exact_search(monkeypatch):
    monkeypatch.setattr(graphs, "GPU_TREE_MIN_POINTS", 1000)
    X, _ = _clusters(3000, dim=10)
    distances, indices = graphs.knn_distances(X, 10, device="gpu")
    reference = NearestNeighbors(n_neighbors=10).fit(X).kneighbors()
    np.testing.assert_array_equal(indices, reference[1])
    np.testing.assert_allclose(distances, reference[0], rtol=1e-10)


# --------------------------------------------------------------------------------------------
# The app says which device fitted a view
# --------------------------------------------------------------------------------------------


def test_a_view_result_carries_the_device_that_fitted_it(monkeypatch):
    from metriclab import datasets
    from metriclab.ui.shared import compute
    from tests.apptest_helpers import fit_request, split_ref

    _no_gpu(monkeypatch)
    ds = datasets.load("two_moons")
    mask = compute.split_mask(ds.y, split_ref("per_class", 5, 0))
    assert compute.fit_view((ds, mask), fit_request("two_moons", "tdl")).device == "cpu"
    _numpy_gpu(monkeypatch)
    assert compute.fit_view((ds, mask), fit_request("two_moons", "le")).device == "gpu"
    assert compute.fit_view((ds, mask), fit_request("two_moons", "euclidean")).device is None


def test_the_live_view_s_caption_names_the_device():
    from tests.apptest_helpers import run_page

    at = run_page("embed", {"method": "tdl"}, timeout=120)
    assert not at.exception and not at.error
    fitted = [c.value for c in at.main.caption if "on this split; fit in" in c.value]
    device = "GPU" if gpu_available() else "CPU"  # "auto": the GPU where there is one
    assert fitted and all(f" ms on the {device} (cached" in c for c in fitted), fitted


# --------------------------------------------------------------------------------------------
# The 1-NN baseline
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 3])
def test_knn_accuracy_on_the_gpu_backend_equals_scikit_learn_s(k, monkeypatch):
    from sklearn.datasets import load_digits

    from metriclab.evaluation import knn_accuracy

    X, y = load_digits(return_X_y=True)
    X = X + np.random.default_rng(0).normal(0, 1e-3, X.shape)  # no tied distances
    expected = knn_accuracy(X[:1000], y[:1000], X[1000:], y[1000:], k=k, device="cpu")
    _numpy_gpu(monkeypatch)
    searched = []
    real = graphs.brute_force_neighbors
    monkeypatch.setattr(
        "metriclab.evaluation.scoring.brute_force_neighbors",
        lambda *a, **kw: searched.append(kw["device"]) or real(*a, **kw),
    )
    forced = knn_accuracy(X[:1000], y[:1000], X[1000:], y[1000:], k=k, device="gpu")
    assert searched == ["gpu"] and forced == expected
    knn_accuracy(X[:1000], y[:1000], X[1000:], y[1000:], k=k)  # "auto": too small for the GPU
    assert searched == ["gpu"]


# --------------------------------------------------------------------------------------------
# the selection of the k smallest distances (argpartition, or PyTorch's topk on a GPU)
# --------------------------------------------------------------------------------------------


def test_the_k_smallest_columns_are_argpartition_s_and_all_columns_sorted_past_the_width():
    rng = np.random.default_rng(0)
    squared = rng.random((30, 50))
    want = np.sort(np.argsort(squared, axis=1)[:, :7], axis=1)
    np.testing.assert_array_equal(np.sort(graphs.smallest_columns(squared, 7), axis=1), want)
    np.testing.assert_array_equal(graphs.smallest_columns(squared, 50), np.argsort(squared, axis=1))


def test_on_the_gpu_the_selection_is_torch_s_topk_where_there_is_one(monkeypatch):
    """A GPU backend takes `torch_topk` when it returns one (here a NumPy stand-in); the graph is
    the same exact graph."""
    _numpy_gpu(monkeypatch)
    calls = []

    def topk(squared, k):
        calls.append(k)
        return np.argsort(squared, axis=1, kind="stable")[:, :k][:, ::-1]  # any order will do

    monkeypatch.setattr(graphs, "torch_topk", lambda: topk)
    X, _ = _clusters(300)
    got_d, got_i = brute_force_neighbors(X, 6, device="gpu")
    want_d, want_i = brute_force_neighbors(X, 6, device="cpu")
    assert calls and set(calls) == {6}
    np.testing.assert_array_equal(got_i, want_i)
    np.testing.assert_allclose(got_d, want_d, rtol=0, atol=1e-12)


@pytest.mark.gpu
@needs_gpu
def test_torch_topk_on_cupy_blocks_selects_argpartition_s_columns():
    import cupy

    topk = graphs.torch_topk()
    if topk is None:
        pytest.skip("PyTorch with CUDA is not importable")
    squared = cupy.asarray(np.random.default_rng(0).random((200, 5000)))
    got = np.sort(cupy.asnumpy(topk(squared, 11)), axis=1)
    want = np.sort(cupy.asnumpy(cupy.argpartition(squared, 10, axis=1)[:, :11]), axis=1)
    np.testing.assert_array_equal(got, want)
