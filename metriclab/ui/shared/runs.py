"""Long runs started by a button (a comparison, a paper table's fast version), memoised process-wide.

A streamlit-cached function must not draw: on a cache hit streamlit replays the elements the first
call drew, and a progress bar drawn through a callback makes the replay fail
(CacheReplayClosureError) for every later Run with the same settings, in any session. So these
results are memoised here, below streamlit, and progress reaches the page through a callback that
is only called while a result is computed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import pandas as pd

Progress = Callable[[int, int, str], None]


class RunMemo:
    """The last `max_entries` results of `fn(*key, progress=...)`, keyed by the hashable `key`.

    Results are shared by all sessions; each call returns a copy, so a page cannot change the
    stored table. Two sessions missing the same key at once both compute it (no lock is held
    while computing) and the later result is kept.
    """

    def __init__(self, fn: Callable[..., Any], max_entries: int = 16, copy: bool = True):
        self.fn = fn
        self.max_entries = max_entries
        self.copy = copy  # results that are never changed (ViewResult) are handed out as they are
        self._results: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, *key: Any, progress: Progress | None = None) -> Any:
        with self._lock:
            if key in self._results:
                self._results.move_to_end(key)
                return self._hand_out(self._results[key])
        result = self.fn(*key, progress=progress)
        with self._lock:
            self._results[key] = result
            self._results.move_to_end(key)
            while len(self._results) > self.max_entries:
                self._results.popitem(last=False)
        return self._hand_out(result)

    def _hand_out(self, result):
        return result.copy() if self.copy else result

    def __contains__(self, key: tuple) -> bool:
        with self._lock:
            return key in self._results

    def clear(self) -> None:
        with self._lock:
            self._results.clear()


def _fast_reproduction(name: str, seed: int, progress: Progress | None = None) -> pd.DataFrame:
    from metriclab.reproduce import experiments

    return experiments()[name].run(fast=True, n_splits=None, seed=seed, progress=progress)


fast_reproduction = RunMemo(_fast_reproduction, max_entries=16)
"""fast_reproduction(experiment name, seed, progress=None): the table's fast version, memoised."""


def _image_fit(request, progress: Progress | None = None):
    """One image method on one split (the slow ones: tangent distances over every test image),
    reporting its stages to `progress`."""
    from metriclab.ui.shared import memo

    return memo.fit_uncached(request, extras=False, progress=progress)


_image_fits = RunMemo(_image_fit, max_entries=32, copy=False)


def image_fit(request, progress: Progress | None = None):
    """The fit of `request` (a `FitRequest`), memoised; the data set is checked first, so a
    session never reads a result computed on another session's upload."""
    from metriclab.ui.shared.session_data import require_visible

    require_visible(request.data.name)
    return _image_fits(request, progress=progress)
