"""Cached computations for the pages, keyed by small hashable parameters (names, tuples of values),
and the per-session store of uploaded data sets.

Uploads belong to the session that uploaded them: they live in that session's `st.session_state`
(dropped when the session ends — Streamlit keeps a disconnected session's state for two minutes —
or after `UPLOAD_TTL_S` of disuse), at most `MAX_UPLOADS` files and `MAX_UPLOAD_BYTES` of parsed
arrays per session. Another session can neither list nor load them: every cached function checks
that the current session may see an `upload:` name before it looks in a process-wide cache. A
person may publish one of their uploads with `share_upload` ("Share by link" on the Data page):
it is then readable by anyone holding its link — the key is an HMAC of the content under a
per-process secret, 96 random-looking bits — for `SHARE_TTL_S`, within `SHARED_MAX_BYTES` in all.

Memory (worst case, documented in README "Memory for N users"): the process-wide caches below are
bounded by entry counts chosen from a per-entry byte estimate of the largest allowed data set.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from metriclab import datasets
from metriclab.datasets import Dataset
from metriclab.datasets.sampling import subsample
from metriclab.methods import REGISTRY
from metriclab.ui import compute

UPLOAD_PREFIX = "upload:"
MB = 2**20


def _env_number(name: str, default: float) -> float:
    """A positive number from the environment, else `default` (a bad value is ignored)."""
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


MAX_UPLOADS = int(_env_number("METRICLAB_MAX_UPLOADS", 4))  # per session
MAX_UPLOAD_BYTES = int(_env_number("METRICLAB_MAX_UPLOAD_MB", 32) * MB)  # parsed X, per session
UPLOAD_TTL_S = _env_number("METRICLAB_UPLOAD_TTL_S", 4 * 3600)  # unused for this long: dropped
SHARED_MAX_BYTES = int(_env_number("METRICLAB_SHARED_MB", 256) * MB)  # all shared uploads
SHARE_TTL_S = _env_number("METRICLAB_SHARE_TTL_S", 24 * 3600)
_SECRET = secrets.token_bytes(32)  # per process: upload keys cannot be guessed from outside
_SESSION = "_metriclab_uploads"


def params_key(params: dict[str, Any]) -> tuple:
    return tuple(sorted(params.items()))


def dataset_nbytes(ds: Dataset) -> int:
    return int(ds.X.nbytes + ds.y.nbytes)


def upload_key(data: bytes, label_column: str | None) -> str:
    """`upload:` + 24 hex digits of an HMAC of the file and its label column (same file, same key)."""
    message = data + b"\0" + repr(label_column).encode()
    return UPLOAD_PREFIX + hmac.new(_SECRET, message, hashlib.sha256).hexdigest()[:24]


@dataclass
class _Upload:
    dataset: Dataset
    used: float  # time.monotonic() of the last use


class SharedUploads:
    """Uploads published by link: a thread-safe store bounded in bytes (least recently used out
    first) and in time (`ttl_s` after publishing)."""

    def __init__(
        self, max_bytes: int = SHARED_MAX_BYTES, ttl_s: float = SHARE_TTL_S, clock=time.monotonic
    ):
        self.max_bytes = max_bytes
        self.ttl_s = ttl_s
        self.clock = clock
        self._items: OrderedDict[str, tuple[Dataset, float]] = OrderedDict()
        self._lock = threading.Lock()

    def _expire(self, now: float) -> None:
        for key in [k for k, (_, until) in self._items.items() if until <= now]:
            del self._items[key]

    def put(self, key: str, ds: Dataset) -> None:
        size = dataset_nbytes(ds)
        if size > self.max_bytes:
            raise ValueError(
                f"{ds.name} is too large to share ({size / MB:.0f} MB; the server shares at most "
                f"{self.max_bytes / MB:.0f} MB)"
            )
        with self._lock:
            now = self.clock()
            self._expire(now)
            self._items.pop(key, None)
            self._items[key] = (ds, now + self.ttl_s)
            while sum(dataset_nbytes(d) for d, _ in self._items.values()) > self.max_bytes:
                self._items.popitem(last=False)

    def get(self, key: str) -> Dataset | None:
        with self._lock:
            self._expire(self.clock())
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    @property
    def nbytes(self) -> int:
        with self._lock:
            return sum(dataset_nbytes(d) for d, _ in self._items.values())


SHARED = SharedUploads()


def _session_uploads() -> OrderedDict[str, _Upload]:
    """This session's uploads (oldest first), without those unused for `UPLOAD_TTL_S`."""
    store = st.session_state.setdefault(_SESSION, OrderedDict())
    now = time.monotonic()
    for key in [k for k, u in store.items() if now - u.used > UPLOAD_TTL_S]:
        del store[key]
    return store


def register_upload(data: bytes, filename: str, label_column: str | None = None) -> str:
    """Parse an uploaded CSV (ValueError with the reason on bad files), keep it in this session and
    return its data set key. The session's oldest uploads are dropped to stay within MAX_UPLOADS and
    MAX_UPLOAD_BYTES; `last_dropped()` names them."""
    key = upload_key(data, label_column)
    store = _session_uploads()
    st.session_state["_metriclab_dropped"] = []
    if key in store:
        store[key].used = time.monotonic()
        store.move_to_end(key)
        return key
    import io

    ds = datasets.load_csv(io.BytesIO(data), label_column=label_column)
    ds.name = filename
    _keep(store, key, ds)
    return key


def register_dataset(ds: Dataset, content: bytes, replace: str | None = None) -> str:
    """Keep a data set made in this session (a drawing) with its uploads, under the same rules
    (private to the session, within MAX_UPLOADS and MAX_UPLOAD_BYTES); `content` identifies it and
    `replace` is the key of an earlier one it supersedes. Returns its data set key."""
    key = upload_key(content, None)
    store = _session_uploads()
    st.session_state["_metriclab_dropped"] = []
    if replace is not None and replace != key:
        store.pop(replace, None)
    if key in store:
        store[key].used = time.monotonic()
        store.move_to_end(key)
        return key
    _keep(store, key, ds)
    return key


def _keep(store: OrderedDict[str, _Upload], key: str, ds: Dataset) -> None:
    """Add `ds` to the session's store, dropping the oldest to stay within the limits."""
    size = dataset_nbytes(ds)
    if size > MAX_UPLOAD_BYTES:
        raise ValueError(
            f"the parsed data take {size / MB:.0f} MB; a session may hold at most "
            f"{MAX_UPLOAD_BYTES / MB:.0f} MB of uploads"
        )
    dropped = []
    while store and (
        len(store) >= MAX_UPLOADS
        or size + sum(dataset_nbytes(u.dataset) for u in store.values()) > MAX_UPLOAD_BYTES
    ):
        _, old = store.popitem(last=False)
        dropped.append(old.dataset.name)
    store[key] = _Upload(ds, time.monotonic())
    st.session_state["_metriclab_dropped"] = dropped


def last_dropped() -> list[str]:
    """Names of the uploads the last `register_upload` dropped to make room."""
    return list(st.session_state.get("_metriclab_dropped", []))


def uploaded_names() -> dict[str, str]:
    """This session's uploads (key -> file name); never another session's."""
    return {key: u.dataset.name for key, u in _session_uploads().items()}


def share_upload(key: str) -> str:
    """Publish one of this session's uploads by link; returns the link's query (`ds=upload:...`)."""
    store = _session_uploads()
    if key not in store:
        raise ValueError("only a data set uploaded in this session can be shared")
    SHARED.put(key, store[key].dataset)
    return f"ds={key}"


def is_shared(key: str) -> bool:
    return key in SHARED


def adopt_shared(key: str) -> bool:
    """Make a shared upload (opened by its link) one of this session's data sets; False when the
    key is not shared (or no longer)."""
    ds = SHARED.get(key)
    if ds is None:
        return False
    store = _session_uploads()
    if key not in store:
        while store and len(store) >= MAX_UPLOADS:
            store.popitem(last=False)
        store[key] = _Upload(ds, time.monotonic())
    return True


def upload_dataset(name: str) -> Dataset:
    """This session's uploaded data set `name` (ValueError when this session may not see it)."""
    upload = _session_uploads().get(name)
    if upload is None:
        raise ValueError(
            "this uploaded data set is not available in this session (uploads are private to the "
            "session that uploaded them, and dropped when it ends); upload the file on the Data page"
        )
    upload.used = time.monotonic()
    return upload.dataset


def require_visible(name: str) -> None:
    """Raise ValueError unless this session may use data set `name` (an upload of its own)."""
    if isinstance(name, str) and name.startswith(UPLOAD_PREFIX):
        upload_dataset(name)


def _visible_only(cached):
    """Check the data set name (first argument) before looking in a process-wide cache, so that a
    session cannot read results computed on another session's upload."""

    @functools.wraps(cached)
    def wrapper(name, *args, **kwargs):
        require_visible(name)
        return cached(name, *args, **kwargs)

    wrapper.clear = cached.clear
    return wrapper


@st.cache_resource(show_spinner=False, max_entries=32)
def _named_dataset(name: str, params: tuple = ()) -> Dataset:
    return datasets.load(name, **dict(params))


def dataset(name: str, params: tuple = ()) -> Dataset:
    """A named data set (synthetic ones with their parameters, shared read-only between sessions)
    or one of this session's uploads."""
    if name.startswith(UPLOAD_PREFIX):
        return upload_dataset(name)
    return _named_dataset(name, params)


# Entry bounds, from a per-entry byte estimate of the largest allowed input (see README, "Memory for
# N users"): interactive pages fit at most 5,000 points (Embed's largest cap; 400 points with the
# n×n matrices on Dissimilarity).
VIEW_ENTRIES = 16  # a data set of <= 5,000 points: <= 31 MB (MNIST pool)
FIT_ENTRIES = 256  # an embedding of <= 5,000 points: 80 kB for 2 columns, <= 2 MB for 50
EXTRAS_ENTRIES = 32  # a fit with its n×n matrices at n <= 400: <= 5 MB
SCRUB_ENTRIES = 32  # <= 40 frames of 5,000 × 2: <= 3.2 MB


@st.cache_resource(show_spinner=False, max_entries=VIEW_ENTRIES)
def _named_view(
    name: str, params: tuple, max_points: int | None, seed: int = 0
) -> tuple[Dataset, np.ndarray]:
    return subsample(_named_dataset(name, params), max_points, seed)


def view_data(
    name: str, params: tuple, max_points: int | None, seed: int = 0
) -> tuple[Dataset, np.ndarray]:
    """The data set restricted to a stratified subsample (for large sets) and the kept indices.
    An upload is not kept in the process-wide cache (it leaves memory with its session)."""
    if name.startswith(UPLOAD_PREFIX):
        return subsample(upload_dataset(name), max_points, seed)
    return _named_view(name, params, max_points, seed)


@_visible_only
@st.cache_data(show_spinner=False, max_entries=64)
def split(
    name: str, params: tuple, max_points: int | None, mode: str, value: float, seed: int
) -> np.ndarray:
    ds, _ = view_data(name, params, max_points)
    return compute.split_mask(ds.y, mode, value, seed)


def fit_uncached(
    name,
    params,
    max_points,
    method,
    method_params,
    mode,
    value,
    seed,
    preprocess,
    extras,
    progress=None,
):
    """`method` on the data set and split given by the keys, not memoised (the caches below and
    ui.runs' image-method memo call it); `progress` receives the fit's stages."""
    ds, _ = view_data(name, params, max_points)
    mask = split(name, params, max_points, mode, value, seed)
    return compute.fit_view(
        ds, REGISTRY[method], dict(method_params), mask, extras, preprocess, progress=progress
    )


@st.cache_data(show_spinner=False, max_entries=FIT_ENTRIES)
def _fit_embedding(*args) -> compute.ViewResult:
    return fit_uncached(*args, extras=False)


@st.cache_data(show_spinner=False, max_entries=EXTRAS_ENTRIES)
def _fit_with_extras(*args) -> compute.ViewResult:
    return fit_uncached(*args, extras=True)


def fit(
    name: str,
    params: tuple,
    max_points: int | None,
    method: str,
    method_params: tuple,
    mode: str,
    value: float,
    seed: int,
    extras: bool = False,
    preprocess: str = "none",
) -> compute.ViewResult:
    """`method` with `method_params` on the data set and split given by the other keys; `extras`
    keeps the learned matrices (for the Dissimilarity page; large, so in a smaller cache);
    `preprocess` is the feature scaling (metriclab.preprocess)."""
    require_visible(name)
    args = (name, params, max_points, method, method_params, mode, value, seed, preprocess)
    return _fit_with_extras(*args) if extras else _fit_embedding(*args)


fit.clear = lambda: (_fit_embedding.clear(), _fit_with_extras.clear())


@_visible_only
@st.cache_data(show_spinner=False, max_entries=SCRUB_ENTRIES)
def scrub(
    name: str,
    params: tuple,
    max_points: int | None,
    method: str,
    method_params: tuple,
    mode: str,
    value: float,
    seed: int,
    scrub_name: str,
    scrub_values: tuple,
    preprocess: str = "none",
) -> tuple[list[np.ndarray], list[float]]:
    ds, _ = view_data(name, params, max_points)
    mask = split(name, params, max_points, mode, value, seed)
    return compute.scrub_embeddings(
        ds, REGISTRY[method], dict(method_params), mask, scrub_name, scrub_values, preprocess
    )


@_visible_only
@st.cache_data(show_spinner=False, max_entries=32)
def window(
    name: str,
    params: tuple,
    max_points: int | None,
    method: str,
    method_params: tuple,
    mode: str,
    value: float,
    seed: int,
    row: tuple,
    col: tuple,
    preprocess: str = "none",
) -> compute.WindowMap:
    """The method's accuracy over the grid and its baseline's on the same cells (`WindowMap`)."""
    ds, _ = view_data(name, params, max_points)
    mask = split(name, params, max_points, mode, value, seed)
    spec = REGISTRY[method]
    return compute.window_map(
        ds,
        spec,
        REGISTRY.get(spec.baseline),
        dict(method_params),
        mask,
        (row[0], row[1]),
        (col[0], col[1]),
        preprocess=preprocess,
    )


@_visible_only
@st.cache_data(show_spinner=False, max_entries=EXTRAS_ENTRIES)
def dissimilarity_checks(
    name: str,
    params: tuple,
    max_points: int | None,
    method: str,
    method_params: tuple,
    mode: str,
    value: float,
    seed: int,
    preprocess: str = "none",
) -> compute.DissimilarityChecks:
    """Zhang's Euclidean and Fisher checks on the fitted method's dissimilarity (or the inputs')."""
    ds, _ = view_data(name, params, max_points)
    args = (name, params, max_points, method, method_params, mode, value, seed)
    result = fit(*args, extras=True, preprocess=preprocess)
    return compute.dissimilarity_checks(ds, result, preprocess)


TANGENT_SPLIT = ("fraction", 0.5, 0)  # the Tangent page's fixed split: half of each class trains


@_visible_only
@st.cache_data(show_spinner=False, max_entries=64)
def tangent_pictures(
    name: str, params: tuple, max_points: int | None, query: int, transform: str, amounts: tuple
) -> tuple[np.ndarray, np.ndarray]:
    """Tangent vectors of held-out image `query` and the image moved along `transform`."""
    ds, _ = view_data(name, params, max_points)
    held_out = np.flatnonzero(~split(name, params, max_points, *TANGENT_SPLIT))
    if not 0 <= query < held_out.size:
        raise ValueError(f"query image {query} is not one of the {held_out.size} held-out images")
    image = ds.X[held_out[query]]
    return compute.tangent_pictures(image, tuple(ds.image_shape), transform, amounts)


@_visible_only
@st.cache_data(show_spinner=False, max_entries=64)
def tangent_neighbours(
    name: str,
    params: tuple,
    max_points: int | None,
    query: int,
    transforms: str,
    two_sided: bool,
    k: int = 5,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Nearest training images of held-out image `query` under both distances."""
    ds, _ = view_data(name, params, max_points)
    mask = split(name, params, max_points, *TANGENT_SPLIT)
    return compute.tangent_neighbours(ds, mask, query, transforms, two_sided, k)


RESULTS_DIR = Path(__file__).resolve().parents[2] / "docs" / "reproduction"


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


def stored_reproduction(name: str) -> tuple:
    """(table or None, notes or None) of experiment `name`'s committed full run in
    docs/reproduction/; the files' modification times are part of the key, so new runs show up."""
    return _stored_reproduction(name, _stored_stamp(name))
