"""On-disk cache of per-split results, stored as JSON (never pickle), safe to delete.

One file per (data set, method, parameters, protocol, classifier, split, code version). The key is
hashed into the file name and also stored in the file, so that a file whose content does not match
its key (corrupt, truncated, hand-edited) is ignored and recomputed. The directory is
`$METRICLAB_CACHE` when set, else `.metriclab_cache/` at the repository root.

The directory is bounded: past `max_bytes` (`$METRICLAB_CACHE_MAX_MB`, default 512 MB) the least
recently used records go first (a hit refreshes a file's modification time) until it is below 90 %
of the cap. Several processes may share the directory: a record is written to a temporary file and
renamed over the old one (`os.replace`, atomic on POSIX), so a reader sees the old record, the new
one or none, never a half-written one; two writers of the same key leave one complete record.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import json
import math
import os
import re
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = 1  # bump when the stored record changes shape
DEFAULT_MAX_MB = 512
LOW_WATER = 0.9  # eviction stops below this share of the cap (not one eviction per write)
STALE_TEMP_S = 3600  # temporary files of a writer that died are removed after this long


def default_max_bytes() -> int:
    """`$METRICLAB_CACHE_MAX_MB` (megabytes, > 0) as bytes, else 512 MB."""
    try:
        megabytes = float(os.environ.get("METRICLAB_CACHE_MAX_MB", DEFAULT_MAX_MB))
    except ValueError:
        megabytes = DEFAULT_MAX_MB
    return int((megabytes if megabytes > 0 else DEFAULT_MAX_MB) * 2**20)


def default_directory() -> Path:
    """`$METRICLAB_CACHE`, else `.metriclab_cache/` in a checkout, else the user's cache folder."""
    from metriclab.resources import cache_home

    env = os.environ.get("METRICLAB_CACHE")
    return Path(env).expanduser() if env else cache_home()


def array_digest(*arrays: np.ndarray) -> str:
    """SHA-256 of the arrays' dtype, shape and bytes: identifies a data set by its content."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


_IMPORT = re.compile(
    r"^\s*(?:from\s+(metriclab(?:\.\w+)*)\s+import|import\s+(metriclab(?:\.\w+)*))", re.M
)


@lru_cache(maxsize=256)
def module_source(module_name: str) -> str:
    try:
        return inspect.getsource(importlib.import_module(module_name))
    except (OSError, TypeError, ImportError):
        return ""


def metriclab_dependencies(module_name: str) -> tuple[str, ...]:
    """The module and every metriclab module it imports, directly or not (read from the sources,
    imports inside functions included), sorted."""
    seen: set[str] = set()
    todo = [module_name]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for match in _IMPORT.finditer(module_source(name)):
            target = match.group(1) or match.group(2)
            if target == "metriclab":
                continue
            todo.append(target if _is_module(target) else target.rsplit(".", 1)[0])
    return tuple(sorted(seen))


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


@lru_cache(maxsize=64)
def module_digest(module_name: str) -> str:
    """Short hash of the sources of a module and of the metriclab modules it imports, so that
    editing a method (or the kernels or graphs it uses) invalidates its cached results."""
    h = hashlib.sha256()
    for name in metriclab_dependencies(module_name):
        h.update(name.encode())
        h.update(module_source(name).encode())
    return h.hexdigest()[:16]


def code_version(*module_names: str) -> str:
    """metriclab's version plus the source hashes of the given modules (with their imports)."""
    from metriclab import __version__

    parts = [__version__] + [f"{m}:{module_digest(m)}" for m in sorted(set(module_names))]
    return "|".join(parts)


def _jsonable(value: Any) -> Any:
    """Plain JSON types for parameters and results (NumPy scalars, tuples, non-finite floats)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # 'nan', 'inf': JSON has no such numbers
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


def canonical_json(value: Any) -> str:
    return json.dumps(_jsonable(value), sort_keys=True, separators=(",", ":"))


def key_digest(key: dict) -> str:
    return hashlib.sha256(canonical_json(key).encode()).hexdigest()


class CappedFolder:
    """What the two disk caches share (`ResultCache` here, `metriclab.graph_store.ArrayStore`): a
    folder (None: the subclass's `default_location()`) holding at most `max_bytes`, its hit, miss
    and eviction counts, and the least-recently-used eviction over (last use, bytes, item) triples."""

    def __init__(self, directory: str | os.PathLike | None = None, max_bytes: int | None = None):
        default_folder, default_bytes = self.default_location()
        self.directory = Path(directory) if directory is not None else default_folder
        self.max_bytes = default_bytes if max_bytes is None else int(max_bytes)
        if self.max_bytes <= 0:
            raise ValueError(f"max_bytes must be positive, got {max_bytes!r}")
        self.hits = 0
        self.misses = 0
        self.evicted = 0

    @staticmethod
    def default_location() -> tuple[Path, int]:
        """(folder, byte cap) when none is given: the result cache's."""
        return default_directory(), default_max_bytes()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.directory)!r}, max_bytes={self.max_bytes})"

    def _evict_oldest(self, items, target: int | None, remove) -> int:
        """Remove the least recently used of `items` ((last use, bytes, item)) with `remove(item)`
        (True: removed; False: gone already; None: could not) until at most `target` bytes remain
        (default 90 % of the cap); returns how many were removed. Leaves the bytes remaining in
        `self._size`."""
        target = int(LOW_WATER * self.max_bytes) if target is None else target
        items = sorted(items)
        total = sum(size for _, size, _ in items)
        removed = 0
        for _, size, item in items:
            if total <= target:
                break
            gone = remove(item)
            if gone is None:
                continue
            removed += gone
            total -= size
        self._size = total
        self.evicted += removed
        return removed


class ResultCache(CappedFolder):
    """A directory of JSON records keyed by a dict; `get` returns None on a miss or a bad file.
    At most `max_bytes` on disk (None: `default_max_bytes()`), least recently used out first."""

    def __init__(self, directory: str | os.PathLike | None = None, max_bytes: int | None = None):
        super().__init__(directory, max_bytes)
        self._size: int | None = None  # bytes on disk as this process believes; None: not yet read

    def path(self, key: dict) -> Path:
        digest = key_digest(key)
        return self.directory / digest[:2] / f"{digest}.json"

    def get(self, key: dict) -> dict | None:
        path = self.path(key)
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            ok = (
                isinstance(record, dict)
                and record.get("format") == FORMAT
                and canonical_json(record.get("key")) == canonical_json(key)
                and isinstance(record.get("value"), dict)
            )
        except (OSError, ValueError, UnicodeDecodeError):
            ok = False
        if not ok:
            self.misses += 1
            return None
        self.hits += 1
        try:
            os.utime(path)  # recently used: evicted last
        except OSError:
            pass
        return record["value"]

    def put(self, key: dict, value: dict) -> None:
        """Write atomically (temporary file + rename); a failure to write is not an error."""
        path = self.path(key)
        text = json.dumps(
            {"format": FORMAT, "key": _jsonable(key), "value": _jsonable(value)}, sort_keys=True
        )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(text)
                os.replace(tmp, path)
            except OSError:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            return
        if self._size is None:
            self._size = self.nbytes()
        else:
            self._size += len(text.encode())
        if self._size > self.max_bytes:
            self.evict()

    def _records(self) -> list[tuple[float, int, Path]]:
        """(modification time, size, path) of every record; stale temporary files are removed."""
        out = []
        if not self.directory.exists():
            return out
        now = time.time()
        for path in self.directory.glob("*/*.json"):
            try:
                info = path.stat()
            except OSError:  # removed meanwhile by another process
                continue
            if path.name.startswith(".tmp-"):
                if now - info.st_mtime > STALE_TEMP_S:
                    path.unlink(missing_ok=True)
                continue
            out.append((info.st_mtime, info.st_size, path))
        return out

    def nbytes(self) -> int:
        """Bytes of the records on disk now."""
        return sum(size for _, size, _ in self._records())

    def evict(self, target: int | None = None) -> int:
        """Remove the least recently used records until at most `target` bytes remain (default 90 %
        of the cap); returns how many were removed. Safe while other processes read and write."""
        return self._evict_oldest(self._records(), target, _unlink)

    def clear(self) -> int:
        """Delete every record; returns how many were removed."""
        removed = 0
        if not self.directory.exists():
            return 0
        for path in self.directory.glob("*/*.json"):
            try:
                path.unlink()
                removed += 1
            except OSError:
                pass
        self._size = 0
        return removed

    def __len__(self) -> int:
        return len(self._records())


def _unlink(path: Path) -> bool | None:
    """Remove a record: True; False when another process evicted it first; None when it stays."""
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    except OSError:
        return None
    return True


def as_cache(cache: Any) -> ResultCache | None:
    """None/False -> no cache; True -> the default directory; a path -> that directory."""
    if cache is None or cache is False:
        return None
    if cache is True:
        return ResultCache()
    if isinstance(cache, ResultCache):
        return cache
    if isinstance(cache, str | os.PathLike):
        return ResultCache(cache)
    raise ValueError(f"cache must be None, True, a directory path or a ResultCache, got {cache!r}")
