"""The data sets a session sees: the shipped and synthetic ones (read once, shared read-only by
all sessions) and the session's own uploads and drawings.

Uploads belong to the session that uploaded them: they live in that session's `st.session_state`
(dropped when the session ends — Streamlit keeps a disconnected session's state for two minutes —
or after `UPLOAD_TTL_S` of disuse), at most `MAX_UPLOADS` files and `MAX_UPLOAD_BYTES` of parsed
arrays per session. Another session can neither list nor load them: every cached function checks
that the current session may see an `upload:` name before it looks in a process-wide cache. A
person may publish one of their uploads with `share_upload` ("Share by link" on the Data page):
it is then readable by anyone holding its link — the key is an HMAC of the content under a
per-process secret, 96 random-looking bits — for `SHARE_TTL_S`, within `SHARED_MAX_BYTES` in all.

Memory: see README "Hosting the app for a class" (the bounds of the upload store and of the
shared data sets).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

import streamlit as st

from metriclab import datasets
from metriclab.datasets import Dataset
from metriclab.ui.shared.fit_request import UPLOAD_PREFIX

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
    ds.source = f"uploaded file {filename} (held in this session only)"  # not "upload: upload"
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


@st.cache_resource(show_spinner="load: reading the data set (once per server)", max_entries=32)
def named_dataset(name: str, params: tuple = ()) -> Dataset:
    """A shipped or synthetic data set, read once and shared read-only by all sessions, in float64
    as every fit computes: a fit takes the shared array as it is. (All of MNIST was held in
    float32, 220 MB, and each full-size fit made a 440 MB float64 copy, 0.3-1.0 s of a λ move in
    a busy server process, and the copy's memory on top while it ran; now 440 MB, no copy.)"""
    ds = datasets.load(name, **dict(params))
    ds.X.flags.writeable = False  # shared by every session: read-only
    return ds


def dataset(name: str, params: tuple = ()) -> Dataset:
    """A named data set (synthetic ones with their parameters, shared read-only between sessions)
    or one of this session's uploads."""
    if name.startswith(UPLOAD_PREFIX):
        return upload_dataset(name)
    return named_dataset(name, params)
