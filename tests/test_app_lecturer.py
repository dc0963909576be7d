"""AppTests of issue 16 (a lecturer rehearsing a demo): every button works the second time, in this
session and in another; presets set the whole view; defaults make sense; no tables with "None"."""

import pandas as pd

from tests.apptest_helpers import figures, run_page

TIMEOUT = 180


def run(page, query=None):
    return run_page(page, query, timeout=TIMEOUT)


def assert_clean(at):
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


# --- 1. a repeat Run (same settings) in the same and in another session -----------------------


def test_compare_runs_twice_in_one_session_and_again_in_another():
    query = {"cds": "iris", "cm": "pca", "splits": "2"}
    first = run("compare", query)
    first.button[0].click().run()
    assert_clean(first)
    table = first.dataframe[0].value
    first.button[0].click().run()  # the same settings again: a memo hit, no replayed progress bar
    assert_clean(first)
    pd.testing.assert_frame_equal(first.dataframe[0].value, table)
    second = run("compare", query)  # another session, same settings
    second.button[0].click().run()
    assert_clean(second)
    pd.testing.assert_frame_equal(second.dataframe[0].value, table)
    assert len(figures(second)) == 2


def test_reproduce_fast_run_twice_in_one_session_and_again_in_another(monkeypatch):
    import metriclab.reproduce as reproduce
    from metriclab.ui import runs

    calls = []

    def fake_run(fast, n_splits, seed, progress):
        calls.append(seed)
        for i in range(3):
            progress(i + 1, 3, "step")  # draws the page's progress bar, as the real runs do
        return pd.DataFrame(
            {
                "setting": ["wine"],
                "method": ["TDL"],
                "paper": [5.0],
                "ours_mean": [4.5],
                "ours_std": [0.5],
            }
        )

    fake = reproduce.Experiment("fake-repeat", "A fake table", "paper-x", fake_run, "")
    monkeypatch.setattr(reproduce, "experiments", lambda: {"fake-repeat": fake})
    runs.fast_reproduction.clear()
    for _ in range(2):  # two sessions
        at = run("reproduce")
        for _ in range(2):  # Run pressed twice in each
            at.button(key="run_fast").click().run()
            assert_clean(at)
            assert at.dataframe[-1].value["ours_mean"].iloc[0] == 4.5
    assert calls == [0]  # computed once, then served from the memo to both sessions


def test_run_memo_keeps_the_last_entries_and_hands_out_copies():
    from metriclab.ui.runs import RunMemo

    calls = []

    def table(a, progress=None):
        calls.append(a)
        if progress:
            progress(1, 1, "done")
        return pd.DataFrame({"a": [a]})

    memo = RunMemo(table, max_entries=2)
    seen = []
    out = memo(1, progress=lambda *args: seen.append(args))
    out.loc[0, "a"] = 99  # a page changing its copy does not change the stored table
    assert memo(1, progress=lambda *args: seen.append(args))["a"].iloc[0] == 1
    assert calls == [1] and seen == [(1, 1, "done")]
    memo(2)
    memo(3)
    assert (1,) not in memo and (3,) in memo


# --- 2. a collapsed embedding is said on the page -------------------------------------------------


def test_collapse_warning_counts_distinct_positions():
    import numpy as np

    from metriclab.ui.compute import collapse_warning

    mask = np.zeros(100, dtype=bool)
    mask[:10] = True
    rng = np.random.default_rng(0)
    spread = rng.normal(size=(100, 2))
    assert collapse_warning(spread, mask) is None
    few = np.repeat(rng.normal(size=(5, 2)), 20, axis=0)
    assert "only 5 distinct" in collapse_warning(few, mask)


def test_embed_page_warns_when_the_zhang_expansion_collapses(monkeypatch):
    import metriclab.methods.zhang as zhang

    monkeypatch.setattr(zhang, "expansion_width", lambda X, centres: 1e-6)  # every basis fn ~0
    # an unusual iteration count keeps this fit out of the other tests' cache entries
    at = run("embed", {"ds": "wine", "method": "zhang_mds", "p.zhang_mds.max_iter": "37"})
    assert not at.exception
    assert any("collapsed" in w.value for w in at.warning)
    monkeypatch.undo()
    at = run("embed", {"ds": "wine", "method": "zhang_mds"})
    assert_clean(at)
    assert not any("collapsed" in w.value for w in at.warning)
