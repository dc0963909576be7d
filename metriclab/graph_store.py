"""What a full-size view computes once per machine, kept on disk and memory-mapped (issue 41).

The kNN graph of all 70,000 MNIST digits takes 13-17 s and does not depend on any slider; neither
does TDL's label cost for a given label set, the Laplacian Eigenmaps baseline or the eigenpairs of
a problem already solved. An `ArrayStore` keeps such arrays in a folder, one entry per key:

    <folder>/<kind>-<sha256 of the key>/  meta.json (format, kind, key, scalars) + one .npy per array

- keyed by content: the data's SHA-256 (`metriclab.cache.array_digest`), the parameters and the
  source hash of the code that computed the entry (`metriclab.cache.module_digest`), so an edit of
  the graph code or a new data file is a miss, never a stale hit; a `meta.json` whose key does not
  match is ignored;
- memory-mapped (`np.load(mmap_mode="r")`): every server process of the machine reads the same
  pages of the operating system's file cache instead of a copy of its own;
- written atomically: into a temporary folder beside the entry, renamed into place (`os.rename`,
  atomic on POSIX and on NFS); a reader sees the whole entry or none, and when two processes race
  the second rename fails and its copy is dropped. A per-key lock file (`fcntl.flock`) makes a
  second process wait for the first one's graph instead of computing it too;
- bounded: past `max_bytes` (`$METRICLAB_GRAPH_CACHE_MAX_MB`, default 2048 MB) the least recently
  used entries go (a hit refreshes `meta.json`'s time) until below 90 % of the cap. An entry
  removed while another process has it mapped stays readable there (POSIX unlink semantics);
- cleared by `metriclab cache clear` (`metriclab cache info` lists it).

The folder is `$METRICLAB_GRAPH_CACHE` when set (e.g. a folder shared by several hosts over NFS),
else `arrays/` in the result cache's folder (`metriclab.cache.default_directory()`: the user's
cache folder for an installed lab, `.metriclab_cache/` in a checkout).

`SharedGraph` is the (W, width) pair that `metriclab.methods.spectral`'s estimators accept as
`graph=`; built by `shared_graph` it carries its store, so a fit on it finds its label cost and
the eigenpairs of a problem solved before (by any process) there, and it keeps the last
eigenvectors of each problem family in memory to warm-start the next λ's eigensolve.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import threading
import time
import weakref
from collections import OrderedDict
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from metriclab.cache import CappedFolder, canonical_json, module_digest

FORMAT = 1
DEFAULT_MAX_MB = 2048
STALE_TEMP_S = 3600
DIRECTORY_ENV = "METRICLAB_GRAPH_CACHE"
MAX_MB_ENV = "METRICLAB_GRAPH_CACHE_MAX_MB"
WARM_STARTS_KEPT = 4  # eigenvector blocks kept per graph for warm starts (70,000 × 60: 34 MB each)


def default_directory() -> Path:
    """`$METRICLAB_GRAPH_CACHE`, else `arrays/` in the result cache's folder."""
    from metriclab.cache import default_directory as results

    env = os.environ.get(DIRECTORY_ENV)
    return Path(env).expanduser() if env else results() / "arrays"


def default_max_bytes() -> int:
    """`$METRICLAB_GRAPH_CACHE_MAX_MB` (megabytes, > 0) as bytes, else 2048 MB."""
    try:
        megabytes = float(os.environ.get(MAX_MB_ENV, DEFAULT_MAX_MB))
    except ValueError:
        megabytes = DEFAULT_MAX_MB
    return int((megabytes if megabytes > 0 else DEFAULT_MAX_MB) * 2**20)


def _entry_bytes(folder: Path) -> int:
    total = 0
    for path in folder.iterdir():
        with contextlib.suppress(OSError):
            total += path.stat().st_size
    return total


class ArrayStore(CappedFolder):
    """A folder of named arrays per key (see the module docstring). `get` returns the arrays
    memory-mapped (read-only) and the scalars, or None on a miss or a bad entry."""

    def __init__(self, directory: str | os.PathLike | None = None, max_bytes: int | None = None):
        super().__init__(directory, max_bytes)
        self.writes = 0

    @staticmethod
    def default_location() -> tuple[Path, int]:
        """(folder, byte cap) when none is given: `default_directory()`, `default_max_bytes()`."""
        return default_directory(), default_max_bytes()

    def path(self, kind: str, key: dict) -> Path:
        digest = hashlib.sha256(canonical_json({"kind": kind, "key": key}).encode()).hexdigest()
        return self.directory / f"{kind}-{digest}"

    def get(self, kind: str, key: dict) -> tuple[dict[str, np.ndarray], dict] | None:
        found = self._read(kind, key)
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    def _read(self, kind: str, key: dict) -> tuple[dict[str, np.ndarray], dict] | None:
        folder = self.path(kind, key)
        try:
            meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
            if meta.get("format") != FORMAT or canonical_json(meta.get("key")) != canonical_json(
                key
            ):
                raise ValueError("not this key")
            arrays = {
                name: np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False)
                for name in meta["arrays"]
            }
        except (OSError, ValueError, KeyError, TypeError):
            return None
        with contextlib.suppress(OSError):
            os.utime(folder / "meta.json")  # recently used: evicted last
        return arrays, meta.get("scalars", {})

    def put(self, kind: str, key: dict, arrays: dict[str, np.ndarray], scalars: dict | None = None):
        """Write the entry atomically; a failure to write (full disk, read-only folder) is not an
        error, and an entry written meanwhile by another process is kept."""
        folder = self.path(kind, key)
        meta = {
            "format": FORMAT,
            "kind": kind,
            "key": json.loads(canonical_json(key)),
            "arrays": sorted(arrays),
            "scalars": scalars or {},
            "written": time.time(),
        }
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            temporary = Path(tempfile.mkdtemp(dir=self.directory, prefix=".tmp-"))
        except OSError:
            return
        try:
            for name, value in arrays.items():
                np.save(temporary / f"{name}.npy", np.ascontiguousarray(value), allow_pickle=False)
            (temporary / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
            os.rename(temporary, folder)  # atomic; fails when another writer was first
            self.writes += 1
        except OSError:
            shutil.rmtree(temporary, ignore_errors=True)
            return
        if self.nbytes() > self.max_bytes:
            self.evict()

    @contextlib.contextmanager
    def lock(self, kind: str, key: dict):
        """An exclusive lock on one key across the processes of a machine (and of hosts sharing
        the folder where the file system supports locks); without one, no lock."""
        lock_path = self.path(kind, key).with_suffix(".lock")
        try:
            import fcntl

            self.directory.mkdir(parents=True, exist_ok=True)
            handle = open(lock_path, "a+b")  # noqa: SIM115 (closed below)
        except (ImportError, OSError):
            yield
            return
        try:
            with contextlib.suppress(OSError):
                fcntl.flock(handle, fcntl.LOCK_EX)
            yield
        finally:
            handle.close()

    def get_or_compute(self, kind: str, key: dict, compute):
        """(arrays, scalars) of `key`, computed by `compute()` -> (arrays, scalars) and stored on
        a miss; one process computes a key at a time, the others wait and read its entry."""
        found = self.get(kind, key)
        if found is not None:
            return found
        with _thread_lock(self.path(kind, key)), self.lock(kind, key):
            found = self.get(kind, key)
            if found is not None:
                return found
            arrays, scalars = compute()
            self.put(kind, key, arrays, scalars)
        found = self._read(kind, key)
        return found if found is not None else (arrays, scalars)  # not writable: in memory

    def entries(self) -> list[tuple[float, int, Path]]:
        """(last use, bytes, folder) of every entry; temporary folders of writers that died long
        ago are removed."""
        out = []
        if not self.directory.is_dir():
            return out
        now = time.time()
        for folder in self.directory.iterdir():
            try:
                if folder.name.startswith(".tmp-"):
                    if now - folder.stat().st_mtime > STALE_TEMP_S:
                        shutil.rmtree(folder, ignore_errors=True)
                    continue
                if not folder.is_dir():
                    continue
                used = (folder / "meta.json").stat().st_mtime
                out.append((used, _entry_bytes(folder), folder))
            except OSError:  # removed meanwhile by another process
                continue
        return out

    def nbytes(self) -> int:
        return sum(size for _, size, _ in self.entries())

    def _remove(self, folder: Path) -> bool:
        """Rename out of the way first (a reader never sees a half-removed entry), then delete."""
        dead = folder.with_name(f".tmp-dead-{folder.name}-{os.getpid()}-{threading.get_ident()}")
        try:
            os.rename(folder, dead)
        except OSError:  # another process removed it first
            return False
        shutil.rmtree(dead, ignore_errors=True)
        return True

    def evict(self, target: int | None = None) -> int:
        """Remove the least recently used entries until at most `target` bytes remain (default
        90 % of the cap); returns how many were removed."""
        return self._evict_oldest(self.entries(), target, self._remove)

    def clear(self) -> int:
        """Remove every entry (and the lock files); returns how many entries were removed."""
        removed = sum(self._remove(folder) for _, _, folder in self.entries())
        if self.directory.is_dir():
            for path in self.directory.glob("*.lock"):
                with contextlib.suppress(OSError):
                    path.unlink()
        return removed

    def info(self) -> dict:
        """Entries per kind, bytes, cap and folder (for `metriclab cache info`)."""
        kinds: dict[str, int] = {}
        entries = self.entries()
        for _, _, folder in entries:
            kind = folder.name.rsplit("-", 1)[0]
            kinds[kind] = kinds.get(kind, 0) + 1
        return {
            "directory": str(self.directory),
            "entries": len(entries),
            "bytes": sum(size for _, size, _ in entries),
            "max_bytes": self.max_bytes,
            "kinds": kinds,
        }

    def __len__(self) -> int:
        return len(self.entries())


_thread_locks: dict[Path, threading.Lock] = {}
_thread_locks_guard = threading.Lock()


def _thread_lock(path: Path) -> threading.Lock:
    """flock is per open file, so threads of one process are serialised here as well."""
    with _thread_locks_guard:
        return _thread_locks.setdefault(path, threading.Lock())


_default: ArrayStore | None = None


def content_digest(*arrays: np.ndarray) -> str:
    """SHA-256 of the arrays' dtype, shape and bytes, read in place (`metriclab.cache.array_digest`
    without its copy: 0.2-0.3 s instead of 0.7 s for MNIST's 440 MB)."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.reshape(-1).view(np.uint8))
    return h.hexdigest()


_facts: dict[int, tuple[weakref.ref, OrderedDict]] = {}
_facts_lock = threading.RLock()  # a forgotten array's callback may run under it
FACTS_KEPT = 32  # per array (a label digest per split)


def is_frozen(X) -> bool:
    """Whether the content of X cannot change, so that `array_fact` may keep facts about it: a
    read-only NumPy array whose memory is its own or another read-only array's, or a file mapped
    read-only (the store's arrays, `np.load(mmap_mode="r")`: its files are replaced, never
    rewritten); or a CSR matrix whose three arrays are (a graph read from the store)."""
    if sp.issparse(X):
        return X.format == "csr" and all(is_frozen(a) for a in (X.data, X.indices, X.indptr))
    base = X
    while isinstance(base, np.ndarray) and not base.flags.writeable:
        if base.flags.owndata or (isinstance(base, np.memmap) and base.mode == "r"):
            return True
        base = base.base
    return False


def array_fact(X, name, compute):
    """`compute()`, a fact about the content of `X` (a digest of some of its rows, that it is
    finite, a graph's components), kept while X lives when X cannot change (`is_frozen`: the app's
    data sets, `metriclab.ui.shared.session_data`, and the graphs of the store); computed every
    time for anything else. A λ move refits on the same data and graph, and hashing MNIST's
    labelled rows (22 ms), checking its 55 million values finite (20 ms) or finding its graph's
    pieces (50 ms) is then work done again."""
    if not is_frozen(X):
        return compute()
    if sp.issparse(X):  # the same matrix object, with the same arrays
        name = (name, id(X.data), id(X.indices), id(X.indptr))
    key = id(X)
    with _facts_lock:
        entry = _facts.get(key)
        if entry is not None and entry[0]() is X and name in entry[1]:
            entry[1].move_to_end(name)
            return entry[1][name]
    value = compute()
    with _facts_lock:
        entry = _facts.get(key)
        if entry is None or entry[0]() is not X:

            def forget(ref, key=key):
                with _facts_lock:
                    if key in _facts and _facts[key][0] is ref:
                        del _facts[key]

            entry = _facts[key] = (weakref.ref(X, forget), OrderedDict())
        entry[1][name] = value
        while len(entry[1]) > FACTS_KEPT:
            entry[1].popitem(last=False)
    return value


def default_store() -> ArrayStore:
    """The process's store in `default_directory()` (re-read when the environment changes it)."""
    global _default
    directory = default_directory()
    if _default is None or _default.directory != directory:
        _default = ArrayStore(directory)
    return _default


# --------------------------------------------------------------------------------------------
# Sparse matrices and graphs
# --------------------------------------------------------------------------------------------


def sparse_arrays(M, prefix: str = "") -> dict[str, np.ndarray]:
    M = sp.csr_matrix(M)
    return {
        f"{prefix}data": M.data,
        f"{prefix}indices": M.indices,
        f"{prefix}indptr": M.indptr,
        f"{prefix}shape": np.asarray(M.shape, dtype=np.int64),
    }


def sparse_from(arrays: dict[str, np.ndarray], prefix: str = "") -> sp.csr_matrix:
    """A CSR matrix on the stored (memory-mapped) arrays, not a copy."""
    shape = tuple(int(v) for v in arrays[f"{prefix}shape"])
    return sp.csr_matrix(
        (arrays[f"{prefix}data"], arrays[f"{prefix}indices"], arrays[f"{prefix}indptr"]),
        shape=shape,
        copy=False,
    )


class SharedGraph(tuple):
    """(W, width) as `build_graph` returns it, with where it came from: `store` (an ArrayStore
    or None), `digest` (the graph's key, for the keys of what is computed on it) and
    `warm_starts` (the last eigenvectors per problem family, in this process's memory)."""

    def __new__(cls, W, width: float, store: ArrayStore | None = None, digest: str = ""):
        self = super().__new__(cls, (W, float(width)))
        self.store = store
        self.digest = digest or _graph_content_digest(W, width)
        self.warm_starts: OrderedDict = OrderedDict()
        self.lock = threading.Lock()
        return self

    def __reduce__(self):  # pickled (Dask, joblib) as a plain pair: the store stays local
        return (tuple, ((self[0], self[1]),))

    def warm_start(self, family: tuple) -> np.ndarray | None:
        with self.lock:
            return self.warm_starts.get(family)

    def remember(self, family: tuple, vectors: np.ndarray) -> None:
        with self.lock:
            self.warm_starts[family] = np.array(vectors, dtype=np.float64)
            self.warm_starts.move_to_end(family)
            while len(self.warm_starts) > WARM_STARTS_KEPT:
                self.warm_starts.popitem(last=False)


def _graph_content_digest(W, width) -> str:
    W = sp.csr_matrix(W)
    return content_digest(W.data, W.indices, W.indptr, np.asarray([width, *W.shape], dtype=float))


def graph_key(data_digest: str, n_neighbors: int, width, weights: str = "heat") -> dict:
    return {
        "data": data_digest,
        "graph": "knn",
        "n_neighbors": int(n_neighbors),
        "width": None if width is None else float(width),
        "weights": weights,
        "code": module_digest("metriclab.graphs"),
    }


def shared_graph(
    X: np.ndarray,
    n_neighbors: int,
    width: float | None = None,
    weights: str = "heat",
    store: ArrayStore | None = None,
    data_digest: str | None = None,
    build=None,
) -> SharedGraph:
    """The kNN graph of X (`build`, default `metriclab.graphs.build_graph`), read from `store`
    (default: the process's `default_store()`) when any process of the machine built it before,
    else built and stored. `data_digest`: X's content digest when the caller knows it."""
    if build is None:
        from metriclab.graphs import build_graph as build

    store = default_store() if store is None else store
    digest = data_digest or content_digest(X)
    key = graph_key(digest, n_neighbors, width, weights)

    def compute():  # on the class's Dask cluster where one is configured (metriclab.cluster)
        from metriclab.cluster import run

        W, used = run(build, X, "knn", n_neighbors=n_neighbors, weights=weights, width=width)
        return sparse_arrays(W), {"width": float(used)}

    arrays, scalars = store.get_or_compute("graph", key, compute)
    return SharedGraph(sparse_from(arrays), scalars["width"], store, canonical_digest(key))


def canonical_digest(key: dict) -> str:
    return hashlib.sha256(canonical_json(key).encode()).hexdigest()


# --------------------------------------------------------------------------------------------
# The label cost and eigenpairs on a stored graph (used by metriclab.methods.spectral)
# --------------------------------------------------------------------------------------------


def labels_digest(X: np.ndarray, y: np.ndarray) -> str:
    """What TDL's label cost depends on: the labelled points' rows, their labels and n. Hashing
    only the labelled rows keeps it cheap (10 % of MNIST: 44 MB, 22 ms), and the rows' digest is
    kept with a read-only data set (`array_fact`), so a λ move does not hash them again."""
    labelled = np.flatnonzero(y != -1)
    which = content_digest(np.asarray(X.shape, dtype=np.int64), labelled, y[labelled])
    rows = array_fact(X, ("rows", which), lambda: content_digest(np.asarray(X[labelled])))
    return f"{which}:{rows}"


_label_costs: OrderedDict = OrderedDict()
_label_costs_lock = threading.Lock()
LABEL_COSTS_KEPT = 8  # in memory, per process (MNIST, 5 % labelled: 140,000 non-zeros, 2 MB)


def label_cost(
    X: np.ndarray,
    y: np.ndarray,
    k: int,
    compute,
    store: ArrayStore | None = None,
    device: str = "cpu",
):
    """TDL's cost matrix C (Eq. 6) of this label set, computed once by `compute()` and kept: in
    this process's memory (a λ move refits with the same labels), and in `store` when given (every
    process of the machine). The key holds the cost code's source hash, and the device where the
    neighbours were found when it is the GPU (equally distant neighbours may come in another
    order there, so a CPU fit does not take a GPU's cost)."""
    key = {
        "labels": labels_digest(X, y),
        "k": int(k),
        "code": module_digest("metriclab.methods.spectral"),
    } | ({"device": device} if device != "cpu" else {})
    memo = canonical_json(key)
    with _label_costs_lock:
        if memo in _label_costs:
            _label_costs.move_to_end(memo)
            return _label_costs[memo]
    if store is None:
        C = sp.csr_matrix(compute())
    else:
        arrays, _ = store.get_or_compute("cost", key, lambda: (sparse_arrays(compute()), {}))
        C = sparse_from(arrays)
    with _label_costs_lock:
        _label_costs[memo] = C
        while len(_label_costs) > LABEL_COSTS_KEPT:
            _label_costs.popitem(last=False)
    return C


def stored_score(kind: str, arrays: tuple, params: dict, compute) -> float:
    """A number computed from `arrays` (e.g. a 1-NN accuracy), kept in the default store, keyed
    by the arrays' content, `params` and the code of `metriclab.evaluation.scoring`."""
    key = {
        "arrays": content_digest(*(np.asarray(a) for a in arrays)),
        **params,
        "code": module_digest("metriclab.evaluation.scoring"),
    }
    _, scalars = default_store().get_or_compute(kind, key, lambda: ({}, {"value": compute()}))
    return float(scalars["value"])


def clear_memory() -> None:
    """Forget the in-process label costs (tests; the disk store is cleared by `clear`)."""
    with _label_costs_lock:
        _label_costs.clear()
