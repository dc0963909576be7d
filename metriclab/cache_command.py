"""`metriclab cache info|clear`: the two on-disk caches of the lab.

- the result cache (`metriclab.cache.ResultCache`): per-split results of `compare` and the
  reproduction runs, JSON records, `$METRICLAB_CACHE`;
- the array store (`metriclab.graph_store.ArrayStore`): what the full-size views compute once per
  machine (kNN graphs, label costs, eigenpairs, large baselines), memory-mapped by every server
  process, `$METRICLAB_GRAPH_CACHE`.

Both are safe to clear while servers run: a process that has a stored graph mapped keeps reading
it, and the next one computes it again.
"""

from __future__ import annotations


def _megabytes(n: int) -> str:
    return f"{n / 2**20:,.1f} MB"


def run(args) -> int:
    from metriclab.cache import ResultCache
    from metriclab.graph_store import ArrayStore

    results, arrays = ResultCache(), ArrayStore()
    if args.action == "clear":
        print(f"removed {results.clear()} cached results from {results.directory}")
        print(
            f"removed {arrays.clear()} stored arrays (graphs, costs, ...) from {arrays.directory}"
        )
        return 0
    print(
        f"{len(results)} cached results in {results.directory} "
        f"({_megabytes(results.nbytes())} of {_megabytes(results.max_bytes)})"
    )
    info = arrays.info()
    kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(info["kinds"].items()))
    print(
        f"{info['entries']} stored arrays{f' ({kinds})' if kinds else ''} in {info['directory']} "
        f"({_megabytes(info['bytes'])} of {_megabytes(info['max_bytes'])})"
    )
    return 0
