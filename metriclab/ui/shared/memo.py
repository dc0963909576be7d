"""Cached computations of the pages, keyed by one frozen value (`FitRequest`, or its `DataRef` and
`SplitRef`): the subsampled view of a data set, a split's labelled points, a fit, the λ-scrub
frames, the window map and Zhang's checks.

"memo", not "cache": these are the app's in-process memoised computations (Streamlit's caches);
`metriclab.cache` is the on-disk result cache of Compare and `reproduce`, and
`metriclab.graph_store` the on-disk kNN graphs shared by a machine's server processes.

Memory (worst case, documented in README "Hosting the app for a class"): the process-wide caches
below are bounded by entry counts chosen from a per-entry byte estimate of the largest allowed
data set. A session never reads a result computed on another session's upload: every function
checks that the current session may see the data set before it looks in a process-wide cache.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np
import pandas as pd
import streamlit as st

from metriclab import resources
from metriclab.datasets import Dataset
from metriclab.datasets.sampling import subsample
from metriclab.ui.shared import compute, full_size
from metriclab.ui.shared.fit_request import DataRef, FitRequest, SplitRef
from metriclab.ui.shared.session_data import (
    UPLOAD_PREFIX,
    named_dataset,
    require_visible,
    upload_dataset,
)

# Entry bounds, from a per-entry byte estimate of the largest allowed input (see README, "Memory for
# N users"): interactive pages fit at most 5,000 points (Embed's largest cap; 400 points with the
# n×n matrices on Dissimilarity).
VIEW_ENTRIES = 16  # a data set of <= 5,000 points: <= 31 MB (MNIST pool)
FIT_ENTRIES = 256  # an embedding of <= 5,000 points: 80 kB for 2 columns, <= 2 MB for 50
EXTRAS_ENTRIES = 32  # a fit with its n×n matrices at n <= 400: <= 5 MB
SCRUB_ENTRIES = 32  # <= 40 frames of 5,000 × 2: <= 3.2 MB
FULL_SIZE_ENTRIES = 8  # a full-size embedding: 70,000 × 2 float64 = 1.1 MB (10 dims: 5.6 MB)


@st.cache_resource(show_spinner=False, max_entries=VIEW_ENTRIES)
def _named_view(data: DataRef) -> tuple[Dataset, np.ndarray]:
    return subsample(named_dataset(data.name, data.params), data.max_points, 0)


def view_data(data: DataRef) -> tuple[Dataset, np.ndarray]:
    """The data set restricted to a stratified subsample (for large sets) and the kept indices.
    An upload is not kept in the process-wide cache (it leaves memory with its session)."""
    if data.name.startswith(UPLOAD_PREFIX):
        return subsample(upload_dataset(data.name), data.max_points, 0)
    return _named_view(data)


@st.cache_data(show_spinner=False, max_entries=64)
def _split(data: DataRef, split: SplitRef, _y: np.ndarray) -> np.ndarray:
    return compute.split_mask(_y, split)


def split(data: DataRef, split: SplitRef) -> np.ndarray:
    """The labelled points (True) of `split` on the view of `data`."""
    require_visible(data.name)
    return _split(data, split, view_data(data)[0].y)


def resolve(request: FitRequest) -> tuple[Dataset, np.ndarray]:
    """The data of `request`, resolved once per fit: the session's right to see the data set is
    checked, the view (subsample) read and the split drawn; (view, labelled mask)."""
    require_visible(request.data.name)
    ds, _ = view_data(request.data)
    return ds, _split(request.data, request.split, ds.y)


def fit_uncached(request: FitRequest, extras: bool = False, progress=None) -> compute.ViewResult:
    """The fit, not memoised (ui.shared.runs' memo of slow image methods calls it); `progress`
    receives the fit's stages."""
    return _fit_resolved(request, resolve(request), extras, progress)


def _fit_resolved(request: FitRequest, view: tuple, extras: bool, progress=None, spectrum=False):
    """The fit of `request` on its resolved `view` (ds, mask): a view of more than FULL_SIZE
    points takes the full-size path (ui.shared.full_size), the others `compute.fit_view`."""
    ds, mask = view
    if full_size.is_full_size(ds.n_samples):
        return full_size.full_fit(view, request, progress)
    return compute.fit_view(view, request, extras, progress=progress, spectrum=spectrum)


_full_results: OrderedDict[FitRequest, compute.ViewResult] = OrderedDict()
_full_lock = threading.Lock()


def _fit_full_size(request: FitRequest, view: tuple, progress=None) -> compute.ViewResult:
    """Full-size fits, kept process-wide (least recently used out past FULL_SIZE_ENTRIES). Not
    st.cache_data: its progress bar lives on the page, and a cached function may not draw on a
    block made outside it."""
    with _full_lock:
        if request in _full_results:
            _full_results.move_to_end(request)
            return _full_results[request]
    result = _fit_resolved(request, view, False, progress)
    with _full_lock:
        _full_results[request] = result
        _full_results.move_to_end(request)
        while len(_full_results) > FULL_SIZE_ENTRIES:
            _full_results.popitem(last=False)
    return result


def is_full_size(data: DataRef) -> bool:
    """Whether the view of `data` has more than FULL_SIZE points (the full-size path)."""
    return full_size.is_full_size(view_data(data)[0].n_samples)


@st.cache_data(show_spinner=False, max_entries=FIT_ENTRIES)
def _fit_embedding(request: FitRequest, _view: tuple, spectrum: bool) -> compute.ViewResult:
    return _fit_resolved(request, _view, extras=False, spectrum=spectrum)


@st.cache_data(show_spinner=False, max_entries=EXTRAS_ENTRIES)
def _fit_with_extras(request: FitRequest, _view: tuple) -> compute.ViewResult:
    return _fit_resolved(request, _view, extras=True)


def fit(
    request: FitRequest, extras: bool = False, progress=None, spectrum: bool = False
) -> compute.ViewResult:
    """The fit of `request`, cached (the request is the key; its data are resolved once, here);
    `extras` keeps the learned matrices (for the Dissimilarity page; large, so in a smaller
    cache); `spectrum` the first eigenvalues past those used (the Embed page's spectrum). A
    full-size view (70,000 MNIST digits) has its own small cache, and `progress(done, total,
    message)` hears its stages on a cache miss."""
    view = resolve(request)
    if full_size.is_full_size(view[0].n_samples):
        return _fit_full_size(request, view, progress)
    return _fit_with_extras(request, view) if extras else _fit_embedding(request, view, spectrum)


def clear_fits() -> None:
    """Forget every cached fit (the small sets' two caches and the full-size one)."""
    _fit_embedding.clear()
    _fit_with_extras.clear()
    with _full_lock:
        _full_results.clear()


@st.cache_data(show_spinner=False, max_entries=SCRUB_ENTRIES)
def _scrub(request: FitRequest, name: str, values: tuple, _view: tuple):
    return compute.scrub_embeddings(*_view, request, name, values)


def scrub(request: FitRequest, name: str, values: tuple) -> tuple[list[np.ndarray], list[float]]:
    """The embeddings (first two columns) and accuracies with parameter `name` at each of
    `values`, the other parameters as in `request`."""
    return _scrub(request, name, tuple(values), resolve(request))


@st.cache_data(show_spinner=False, max_entries=32)
def _window(request: FitRequest, row: tuple, col: tuple, _view: tuple) -> compute.WindowMap:
    return compute.window_map(*_view, request, (row, col))


def window(request: FitRequest, row: tuple, col: tuple) -> compute.WindowMap:
    """The method's accuracy over the grid `row` × `col` ((name, values) each) and its baseline's
    on the same cells."""
    grid = (row[0], tuple(row[1])), (col[0], tuple(col[1]))
    return _window(request, *grid, resolve(request))


@st.cache_data(show_spinner=False, max_entries=EXTRAS_ENTRIES)
def _dissimilarity_checks(request: FitRequest, _view: tuple) -> compute.DissimilarityChecks:
    result = _fit_with_extras(request, _view)
    return compute.dissimilarity_checks(_view[0], result, request.scaling)


def dissimilarity_checks(request: FitRequest) -> compute.DissimilarityChecks:
    """Zhang's Euclidean and Fisher checks on the fitted method's dissimilarity (or the inputs')."""
    return _dissimilarity_checks(request, resolve(request))


TANGENT_SPLIT = SplitRef("fraction", 0.5, 0)  # the Tangent page's fixed split: half of each class


@st.cache_data(show_spinner=False, max_entries=64)
def _tangent_pictures(data: DataRef, query: int, transform: str, amounts: tuple):
    ds, _ = view_data(data)
    held_out = np.flatnonzero(~split(data, TANGENT_SPLIT))
    if not 0 <= query < held_out.size:
        raise ValueError(f"query image {query} is not one of the {held_out.size} held-out images")
    image = ds.X[held_out[query]]
    return compute.tangent_pictures(image, tuple(ds.image_shape), transform, amounts)


def tangent_pictures(
    data: DataRef, query: int, transform: str, amounts: tuple
) -> tuple[np.ndarray, np.ndarray]:
    """Tangent vectors of held-out image `query` and the image moved along `transform`."""
    require_visible(data.name)
    return _tangent_pictures(data, query, transform, tuple(amounts))


@st.cache_data(show_spinner=False, max_entries=64)
def _tangent_neighbours(data: DataRef, query: int, transforms: str, two_sided: bool):
    ds, _ = view_data(data)
    mask = split(data, TANGENT_SPLIT)
    return compute.tangent_neighbours(ds, mask, query, transforms, two_sided)


def tangent_neighbours(
    data: DataRef, query: int, transforms: str, two_sided: bool
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The five nearest training images of held-out image `query` under both distances."""
    require_visible(data.name)
    return _tangent_neighbours(data, query, transforms, bool(two_sided))


RESULTS_DIR = resources.reproduction()  # docs/reproduction/ of a checkout, or the wheel's copy


def experiments() -> dict:
    """The paper tables that can be rerun (metriclab.reproduce), by name."""
    from metriclab.reproduce import experiments as registered

    return registered()


def _stored_stamp(name: str) -> tuple:
    paths = (RESULTS_DIR / f"{name}.csv", RESULTS_DIR / f"{name}.md")
    return tuple(p.stat().st_mtime if p.exists() else None for p in paths)


@st.cache_data(show_spinner=False, max_entries=64)
def _stored_reproduction(name: str, stamp: tuple) -> tuple:
    csv, md = RESULTS_DIR / f"{name}.csv", RESULTS_DIR / f"{name}.md"
    table = pd.read_csv(csv) if csv.exists() else None
    notes = md.read_text() if md.exists() else None
    return table, notes


@st.cache_data(show_spinner=False, max_entries=4)
def _claims(stamp: tuple) -> list[dict]:
    from metriclab.reproduce import verdicts

    def listed(parts) -> list[tuple[str, str, str]]:
        return [(p.label, p.text, p.state) for p in parts]

    out = []
    for v in verdicts.evaluate_all(RESULTS_DIR, strict=False):
        readings = list(v.readings.items())
        out.append(
            {
                "paper": v.claim["paper"],
                "where": v.claim["where"],
                "quote": v.claim["quote"],
                "tables": list(v.claim.get("tables", [])),
                "paper_text": v.paper,
                "ours": v.ours,
                "word": v.word,
                "why": v.claim.get("why", ""),
                # the headline reading's parts, one line each, and the other readings' (the page
                # lists them; `ours` is the README's one-cell text of them all)
                "headline": readings[0][0] if readings else None,
                "parts": listed(v.parts),
                "other_readings": [
                    (name, word, listed(v.reading_parts.get(name, [])))
                    for name, word in readings[1:]
                ],
                "ours_note": v.claim.get("ours_note", ""),
            }
        )
    return out


def claims() -> list[dict]:
    """Every claim of the four papers with its verdict, computed by the rule from the committed
    tables (metriclab.reproduce.verdicts); recomputed when a table file changes."""
    files = sorted(RESULTS_DIR.glob("*.csv")) + sorted(RESULTS_DIR.glob("splits/*.csv.gz"))
    return _claims(tuple((p.name, p.stat().st_mtime) for p in files))


def stored_reproduction(name: str) -> tuple:
    """(table or None, notes or None) of experiment `name`'s committed full run in
    docs/reproduction/; the files' modification times are part of the key, so new runs show up."""
    return _stored_reproduction(name, _stored_stamp(name))
