"""Cached computations for the pages, keyed by small hashable parameters (names, tuples of values)."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import streamlit as st

from metriclab import datasets
from metriclab.datasets import Dataset
from metriclab.methods import REGISTRY
from metriclab.ui import compute

UPLOAD_PREFIX = "upload:"
# Uploaded data sets by content hash, process-wide (a file's content fixes the data set).
_UPLOADS: dict[str, Dataset] = {}


def params_key(params: dict[str, Any]) -> tuple:
    return tuple(sorted(params.items()))


def register_upload(data: bytes, filename: str, label_column: str | None = None) -> str:
    """Parse an uploaded CSV (ValueError with the reason on bad files) and return its data set key."""
    digest = hashlib.sha256(data + repr(label_column).encode()).hexdigest()[:12]
    key = f"{UPLOAD_PREFIX}{digest}"
    if key not in _UPLOADS:
        import io

        ds = datasets.load_csv(io.BytesIO(data), label_column=label_column)
        ds.name = filename
        _UPLOADS[key] = ds
    return key


def uploaded_names() -> dict[str, str]:
    return {key: ds.name for key, ds in _UPLOADS.items()}


@st.cache_resource(show_spinner=False, max_entries=64)
def dataset(name: str, params: tuple = ()) -> Dataset:
    """A named data set (synthetic ones with their parameters), shared read-only between sessions."""
    if name.startswith(UPLOAD_PREFIX):
        if name not in _UPLOADS:
            raise ValueError(
                "the uploaded file is no longer in memory; upload it again on the Data page"
            )
        return _UPLOADS[name]
    return datasets.load(name, **dict(params))


@st.cache_resource(show_spinner=False, max_entries=64)
def view_data(
    name: str, params: tuple, max_points: int | None, seed: int = 0
) -> tuple[Dataset, np.ndarray]:
    """The data set restricted to a stratified subsample (for large sets) and the kept indices."""
    ds = dataset(name, params)
    keep = compute.subsample_indices(ds.y, max_points, seed)
    if keep.shape[0] == ds.n_samples:
        return ds, keep
    sub = Dataset(
        ds.X[keep],
        ds.y[keep],
        ds.name,
        ds.feature_names,
        ds.target_names,
        ds.description,
        ds.source,
        ds.image_shape,
    )
    return sub, keep


@st.cache_data(show_spinner=False, max_entries=64)
def split(
    name: str, params: tuple, max_points: int | None, mode: str, value: float, seed: int
) -> np.ndarray:
    ds, _ = view_data(name, params, max_points)
    return compute.split_mask(ds.y, mode, value, seed)


@st.cache_data(show_spinner=False, max_entries=512)
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
    keeps the learned matrices (for the Dissimilarity page; large, so off for the live view);
    `preprocess` is the feature scaling (metriclab.preprocess)."""
    ds, _ = view_data(name, params, max_points)
    mask = split(name, params, max_points, mode, value, seed)
    return compute.fit_view(ds, REGISTRY[method], dict(method_params), mask, extras, preprocess)


@st.cache_data(show_spinner=False, max_entries=32)
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
) -> np.ndarray:
    ds, _ = view_data(name, params, max_points)
    mask = split(name, params, max_points, mode, value, seed)
    return compute.window_accuracy(
        ds,
        REGISTRY[method],
        dict(method_params),
        mask,
        (row[0], row[1]),
        (col[0], col[1]),
        preprocess=preprocess,
    )
