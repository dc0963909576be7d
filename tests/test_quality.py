"""Quality beyond 1-NN (issue 37, item 3): trustworthiness and continuity equal scikit-learn's,
the per-point values average to the global ones, known answers on small data, the learned
metric's space, the named sample, and the shuffled-label baseline."""

import numpy as np
import pytest
from sklearn.manifold import trustworthiness as sklearn_trustworthiness

from metriclab import NCA
from metriclab.evaluation import embedding_accuracy, nearest_mean_accuracy
from metriclab.evaluation.quality import (
    FULL_MAX_POINTS,
    accuracy_with_baseline,
    continuity,
    kept_neighbours,
    metric_space,
    neighbourhood_quality,
    quality_sample,
    shuffled_accuracies,
    trustworthiness,
)
from metriclab.evaluation.scoring import classifier_accuracy


def _data(n=120, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, X[:, :2] + 0.5 * rng.normal(size=(n, 2))


def _rotation(d, seed=0):
    q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(d, d)))
    return q


def test_isometry_is_fully_trustworthy_and_continuous():
    X, _ = _data()
    Z = 3.0 * X @ _rotation(X.shape[1]) + 7.0  # rotation, scale and shift keep every rank
    q = neighbourhood_quality(X, Z, k=5)
    assert q.trustworthiness == 1.0 and q.continuity == 1.0 and q.kept == 1.0
    assert np.all(q.trustworthiness_per_point == 1.0)
    assert np.all(q.continuity_per_point == 1.0)
    assert trustworthiness(X, Z) == 1.0 and continuity(X, Z) == 1.0


def test_kept_share_of_identical_spaces_is_one():
    X, _ = _data(50)
    assert np.all(kept_neighbours(X, X, k=4) == 1.0)


@pytest.mark.parametrize("tied", [False, True])
def test_global_values_equal_scikit_learns_exactly(tied):
    X, Z = _data(150, 5, seed=3)
    if tied:  # integer grids: many equal distances in both spaces
        X, Z = np.round(2 * X), np.round(Z)
    q = neighbourhood_quality(X, Z, k=7)
    assert q.trustworthiness == sklearn_trustworthiness(X, Z, n_neighbors=7)
    assert q.continuity == sklearn_trustworthiness(Z, X, n_neighbors=7)
    assert trustworthiness(X, Z, k=7) == q.trustworthiness
    assert continuity(X, Z, k=7) == q.continuity


def test_per_point_values_average_to_the_global_ones():
    X, Z = _data(200, 8, seed=1)
    q = neighbourhood_quality(X, Z, k=10)
    for per_point, value in (
        (q.trustworthiness_per_point, q.trustworthiness),
        (q.continuity_per_point, q.continuity),
        (q.kept_per_point, q.kept),
    ):
        assert per_point.shape == (200,)
        assert np.all((per_point >= 0) & (per_point <= 1))
        assert per_point.mean() == pytest.approx(value, abs=1e-12)
    assert q.trustworthiness < 1 and q.continuity < 1  # not a trivial case
    assert np.ptp(q.trustworthiness_per_point) > 0
    np.testing.assert_array_equal(q.kept_per_point, kept_neighbours(X, Z, k=10))


def test_per_point_trustworthiness_is_zero_when_the_neighbours_are_the_farthest():
    # 1-D: point 0 at 0, the others far away; in the embedding point 0 sits beside the points
    # that are farthest from it in the input, so its two embedding neighbours rank last
    x = np.array([0.0, 1, 2, 3, 4, 5, 100, 101])
    z = x.copy()
    z[0] = 100.5
    q = neighbourhood_quality(x[:, None], z[:, None], k=2)
    assert q.trustworthiness_per_point[0] == 0.0
    assert q.trustworthiness_per_point.mean() == pytest.approx(q.trustworthiness, abs=1e-15)


def test_learned_metric_space_matrix_and_estimator():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    L = np.array([[2.0, 0.5, 0.0], [0.0, 1.0, 0.3]])
    M = L.T @ L
    mapped = metric_space(X, M)
    d_metric = np.linalg.norm(mapped[:, None] - mapped[None], axis=2)
    d_L = np.linalg.norm((X @ L.T)[:, None] - (X @ L.T)[None], axis=2)
    np.testing.assert_allclose(d_metric, d_L, atol=1e-10)
    Z = X[:, 1:]
    assert neighbourhood_quality(X, Z, k=5, metric=M).trustworthiness == pytest.approx(
        sklearn_trustworthiness(X @ L.T, Z, n_neighbors=5), abs=1e-12
    )
    model = NCA(n_components=2, random_state=0).fit(X, y)
    q = neighbourhood_quality(X, Z, k=5, metric=model)
    assert q.against == "metric"
    assert q.trustworthiness == sklearn_trustworthiness(model.transform(X), Z, n_neighbors=5)
    # the learned metric's own embedding is fully trustworthy against that metric
    assert trustworthiness(X, model.transform(X), metric=model.get_mahalanobis_matrix()) == (
        pytest.approx(1.0)
    )


def test_bad_inputs_raise_clear_errors():
    X, Z = _data(20)
    with pytest.raises(ValueError, match="less than half"):
        neighbourhood_quality(X, Z, k=10)
    with pytest.raises(ValueError, match="same points"):
        trustworthiness(X, Z[:-1])
    with pytest.raises(ValueError, match="positive semi-definite"):
        metric_space(X, -np.eye(6))
    with pytest.raises(ValueError, match="whole number"):
        kept_neighbours(X, Z, k=0)


def test_the_sample_is_named_seeded_and_stratified():
    y = np.repeat([0, 1, 2], [600, 300, 100])
    sample = quality_sample(y, size=200, seed=4)
    assert sample.size == 200
    assert sample.name == "a stratified sample of 200 of the 1,000 points (seed 4)"
    np.testing.assert_array_equal(np.bincount(y[sample.indices]), [120, 60, 20])
    np.testing.assert_array_equal(sample.indices, quality_sample(y, 200, seed=4).indices)
    assert not np.array_equal(sample.indices, quality_sample(y, 200, seed=5).indices)
    assert quality_sample(y, 5000).name == "all 1,000 points"


def test_sampled_mode_measures_the_sample_and_says_its_size():
    rng = np.random.default_rng(0)
    n = FULL_MAX_POINTS + 1
    y = rng.integers(0, 3, n)
    X = rng.normal(size=(n, 3))
    Z = X[:, :2]
    q = neighbourhood_quality(X, Z, k=5, y=y, sample=300, seed=1)
    assert q.n_points == q.sample.size == 300
    idx = q.indices
    assert q.trustworthiness == sklearn_trustworthiness(X[idx], Z[idx], n_neighbors=5)
    assert "300 of the 10,001 points" in q.sample.name
    # 'auto' samples a set larger than FULL_MAX_POINTS (checked without measuring it)
    from metriclab.evaluation.quality import SAMPLE_SIZE, _resolve_sample

    assert _resolve_sample(y, n, "auto", 0).size == SAMPLE_SIZE
    assert _resolve_sample(y[:100], 100, "auto", 0).size == 100


def _separable(n_per_class=40, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], n_per_class)
    Z = np.column_stack([10.0 * y, np.zeros_like(y, dtype=float)]) + rng.normal(0, 0.5, (y.size, 2))
    mask = np.zeros(y.size, dtype=bool)
    for c in range(3):
        mask[rng.choice(np.flatnonzero(y == c), 10, replace=False)] = True
    return Z, y, mask


def test_shuffled_baseline_of_a_separable_set_is_near_chance():
    Z, y, mask = _separable()
    result = accuracy_with_baseline(Z, y, mask, n_permutations=20, seed=0)
    assert result.accuracy == 1.0 == embedding_accuracy(Z, y, mask)
    # chance: a random labelled point's class matches with probability Σ p_c² = 1/3
    assert result.baseline_mean == pytest.approx(1 / 3, abs=0.1)
    assert 0 < result.baseline_std < 0.2
    assert result.baseline_accuracies.shape == (20,)
    assert result.n_reference == 30 and result.n_scored == 90
    assert result.permuted == "the labels of the labelled points, among themselves"
    again = accuracy_with_baseline(Z, y, mask, n_permutations=20, seed=0)
    np.testing.assert_array_equal(again.baseline_accuracies, result.baseline_accuracies)


def test_baseline_permutations_are_the_library_classifier_on_permuted_reference_labels():
    Z, y, mask = _separable(seed=2)
    result = accuracy_with_baseline(Z, y, mask, "knn:3", n_permutations=4, seed=7)
    rng = np.random.default_rng(7)
    expected = [
        classifier_accuracy(Z[mask], rng.permutation(y[mask]), Z[~mask], y[~mask], "knn:3")
        for _ in range(4)
    ]
    np.testing.assert_array_equal(result.baseline_accuracies, expected)
    nm = accuracy_with_baseline(Z, y, mask, "nearest_mean", n_permutations=3)
    assert nm.accuracy == nearest_mean_accuracy(Z[mask], y[mask], Z[~mask], y[~mask])
    with pytest.raises(ValueError, match="unknown classifier"):
        accuracy_with_baseline(Z, y, mask, "svm")


@pytest.mark.parametrize("classifier", ["1nn", "knn:2", "knn:5", "nearest_mean"])
def test_shuffled_accuracies_equal_the_classifier_refitted_on_each_permutation(classifier):
    # integer coordinates (distance ties), an even k (vote ties), labels that are not 0..c-1 and
    # a scored class that no reference point carries: one neighbour search, the same numbers
    rng = np.random.default_rng(4)
    Z_ref = rng.integers(0, 4, (40, 2)).astype(float)
    y_ref = rng.choice([3, 7, 11], 40)
    Z_scored = rng.integers(0, 4, (60, 2)).astype(float)
    y_scored = rng.choice([3, 7, 11, 20], 60)
    permutations = [rng.permutation(40) for _ in range(6)]
    fast = shuffled_accuracies(Z_ref, y_ref, Z_scored, y_scored, classifier, permutations)
    slow = [
        classifier_accuracy(Z_ref, y_ref[p], Z_scored, y_scored, classifier) for p in permutations
    ]
    np.testing.assert_array_equal(fast, slow)
    assert len(set(fast)) > 1  # the permutations do change the score


def test_baseline_on_a_sample_of_the_scored_points_keeps_the_full_score():
    Z, y, mask = _separable(n_per_class=60, seed=1)
    result = accuracy_with_baseline(Z, y, mask, n_permutations=5, seed=3, sample=30)
    assert result.baseline_sample.size == 30 and result.n_scored == 150
    assert result.accuracy == embedding_accuracy(Z, y, mask)  # on every unlabelled point
    scored = result.baseline_sample.indices
    Z_test, y_test = Z[~mask][scored], y[~mask][scored]
    rng = np.random.default_rng(3)
    expected = [
        classifier_accuracy(Z[mask], rng.permutation(y[mask]), Z_test, y_test, "1nn")
        for _ in range(5)
    ]
    np.testing.assert_array_equal(result.baseline_accuracies, expected)


def test_the_reference_memo_gives_the_same_measures_as_a_fresh_computation(monkeypatch):
    # a λ move measures a new embedding of the same inputs: from the second sight of the inputs
    # their ranks come from the memo; ties (integer coordinates) ranked as scikit-learn does
    from metriclab.evaluation import quality as Q

    class Off(Q._ReferenceMemo):
        MEMO_POINTS = 0

    class On(Q._ReferenceMemo):
        MEMO_POINTS = 500

    memo = On()
    rng = np.random.default_rng(5)
    X = rng.integers(0, 5, (150, 4)).astype(float)
    for move in range(3):
        Z = X @ rng.normal(size=(4, 2)) + rng.integers(0, 2, (150, 2))
        monkeypatch.setattr(Q, "_REFERENCE_MEMO", memo)
        kept = neighbourhood_quality(X, Z, 6)
        assert (memo._entries[Q.content_digest(X)]["positions"] is not None) == (move >= 1)
        assert kept.trustworthiness == sklearn_trustworthiness(X, Z, n_neighbors=6)
        assert kept.continuity == sklearn_trustworthiness(Z, X, n_neighbors=6)
        monkeypatch.setattr(Q, "_REFERENCE_MEMO", Off())
        fresh = neighbourhood_quality(X, Z, 6)
        np.testing.assert_array_equal(
            kept.trustworthiness_per_point, fresh.trustworthiness_per_point
        )
        np.testing.assert_array_equal(kept.continuity_per_point, fresh.continuity_per_point)
        np.testing.assert_array_equal(kept.kept_per_point, fresh.kept_per_point)


def test_a_read_only_data_sets_sample_is_hashed_and_checked_once_over_lambda_moves(monkeypatch):
    """The app's data sets are read-only: over λ moves the reference's finiteness and its
    sample's digest (the memo's key) are kept with the array (`array_fact`), the measures stay
    the fresh computation's, and a writable array is hashed on every move."""
    from metriclab.evaluation import quality as Q

    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(3), 40)
    X = rng.normal(size=(120, 6))
    X.flags.writeable = False
    hashed = []
    real = Q.content_digest
    monkeypatch.setattr(Q, "content_digest", lambda *a: hashed.append(a[0].shape) or real(*a))
    moves = [X[:, :2] + rng.normal(scale=0.1 * m, size=(120, 2)) for m in range(3)]
    kept = [neighbourhood_quality(X, Z, 5, y=y, sample=60) for Z in moves]
    assert hashed.count((60, 6)) == 1  # the sampled rows hashed once for three moves
    writable = X.copy()
    fresh = [neighbourhood_quality(writable, Z, 5, y=y, sample=60) for Z in moves]
    assert hashed.count((60, 6)) == 4
    for a, b in zip(kept, fresh, strict=True):
        assert (a.trustworthiness, a.continuity, a.kept) == (
            b.trustworthiness,
            b.continuity,
            b.kept,
        )
    bad = np.array(X)
    bad[0, 0] = np.nan
    bad.flags.writeable = False
    with pytest.raises(ValueError, match="NaN or infinite"):
        neighbourhood_quality(bad, moves[0], 5)


def test_the_reference_memo_keeps_small_sets_and_drops_the_oldest_past_its_byte_bound(monkeypatch):
    # two moons and Iris are measured on every slider move: their ranks are kept too; the memo
    # drops the least recently used arrays once their ranks pass BYTES, and the measures are the
    # fresh computation's whichever record they came from
    from metriclab.evaluation import quality as Q

    class Small(Q._ReferenceMemo):
        BYTES = 2 * 2 * 150**2  # two 150-point arrays' int16 ranks

    memo = Small()
    monkeypatch.setattr(Q, "_REFERENCE_MEMO", memo)
    rng = np.random.default_rng(6)
    inputs = [rng.normal(size=(150, 3)) for _ in range(3)]
    for X in inputs:
        for _ in range(2):  # ranks made on the second sight
            Z = X[:, :2] + 0.1 * rng.normal(size=(150, 2))
            kept = neighbourhood_quality(X, Z, 5)
            assert kept.trustworthiness == sklearn_trustworthiness(X, Z, n_neighbors=5)
            assert kept.continuity == sklearn_trustworthiness(Z, X, n_neighbors=5)
    assert list(memo._entries) == [Q.content_digest(X) for X in inputs[1:]]
    assert all(r["positions"].shape == (150, 150) for r in memo._entries.values())
