"""The on-disk result cache is bounded (least recently used out first, configurable) and safe with
several processes writing the same directory."""

from __future__ import annotations

import json
import multiprocessing
import os

import pytest

from metriclab.cache import ResultCache, as_cache, default_max_bytes


def key(i: int) -> dict:
    return {"dataset": "iris", "method": "pca", "split": f"{i:04d}"}  # records of equal size


def value(i: int, size: int = 900) -> dict:
    return {"accuracy": 0.5, "index": f"{i:04d}", "status": "ok", "pad": "x" * size}


def record_size(cache: ResultCache) -> int:
    return cache.path(key(0)).stat().st_size


def fill(cache: ResultCache, indices) -> None:
    """Put records in order, giving each a distinct, increasing modification time."""
    for i in indices:
        cache.put(key(i), value(i))
        os.utime(cache.path(key(i)), (1_000_000 + i, 1_000_000 + i))


def test_the_directory_stays_under_its_cap_oldest_records_out_first(tmp_path):
    probe = ResultCache(tmp_path / "probe")
    probe.put(key(0), value(0))
    size = record_size(probe)
    cache = ResultCache(tmp_path / "c", max_bytes=10 * size)
    fill(cache, range(10))
    assert len(cache) == 10 and cache.evicted == 0  # exactly at the cap: nothing removed
    fill(cache, [10])
    assert cache.nbytes() <= cache.max_bytes
    kept = {i for i in range(11) if cache.get(key(i)) is not None}
    assert 10 in kept and min(kept) > 0  # the newest is kept, the oldest went first
    assert kept == set(range(11 - len(kept), 11))  # strictly oldest-first
    assert cache.nbytes() <= 0.9 * cache.max_bytes + size


def test_a_hit_makes_a_record_recent(tmp_path):
    probe = ResultCache(tmp_path / "probe")
    probe.put(key(0), value(0))
    cache = ResultCache(tmp_path / "c", max_bytes=5 * record_size(probe))
    fill(cache, range(5))
    assert cache.get(key(0)) is not None  # used now: the most recent
    fill(cache, [5])
    assert cache.get(key(0)) is not None
    assert cache.get(key(1)) is None  # the least recently used went instead


def test_the_cap_is_configurable_by_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("METRICLAB_CACHE_MAX_MB", "3")
    assert default_max_bytes() == 3 * 2**20
    monkeypatch.setenv("METRICLAB_CACHE", str(tmp_path / "env"))
    assert as_cache(True).max_bytes == 3 * 2**20
    monkeypatch.setenv("METRICLAB_CACHE_MAX_MB", "lots")
    assert default_max_bytes() == 512 * 2**20
    with pytest.raises(ValueError, match="max_bytes"):
        ResultCache(tmp_path, max_bytes=0)


def test_a_corrupt_or_foreign_record_is_a_miss(tmp_path):
    cache = ResultCache(tmp_path)
    cache.put(key(1), value(1))
    path = cache.path(key(1))
    path.write_text(path.read_text()[:50])  # truncated
    assert cache.get(key(1)) is None
    record = {"format": 1, "key": key(2), "value": value(2)}
    path.write_text(json.dumps(record))  # another key's record under this name
    assert cache.get(key(1)) is None


def _writer(directory: str, worker: int, rounds: int, max_bytes: int) -> None:
    cache = ResultCache(directory, max_bytes=max_bytes)
    for r in range(rounds):
        cache.put(key(0), {"writer": worker, "round": r, "pad": "y" * 5000})
        cache.put(key(1 + (r % 20)), value(r))  # other keys too, so that eviction runs


def test_two_processes_writing_the_same_key_leave_one_complete_record(tmp_path):
    rounds = 150
    max_bytes = 40_000  # small: both processes also evict while the other writes
    ctx = multiprocessing.get_context("fork")
    writers = [
        ctx.Process(target=_writer, args=(str(tmp_path), w, rounds, max_bytes)) for w in (1, 2)
    ]
    for p in writers:
        p.start()
    reader = ResultCache(tmp_path, max_bytes=max_bytes)
    seen = []
    while any(p.is_alive() for p in writers):
        got = reader.get(key(0))
        if got is not None:
            seen.append(got)
    for p in writers:
        p.join(timeout=60)
        assert p.exitcode == 0
    # a reader saw only complete records of one writer or the other, never a mixture
    assert all(v["writer"] in (1, 2) and v["pad"] == "y" * 5000 for v in seen)
    final = reader.get(key(0))
    assert final is not None and final["round"] == rounds - 1
    assert not list(tmp_path.glob("*/.tmp-*"))  # no temporary file left behind
    assert reader.nbytes() <= max_bytes
