"""AppTests of issue 16 (a lecturer rehearsing a demo): every button works the second time, in this
session and in another; presets set the whole view; defaults make sense; no tables with "None"."""

import re

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from metriclab.methods import REGISTRY
from tests.apptest_helpers import figures, fit_request, run_page, split_ref

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
    from metriclab.ui.shared import runs

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
        at = run("reproduce", {"show": "tables"})
        for _ in range(2):  # Run pressed twice in each
            at.button(key="run_fast").click().run()
            assert_clean(at)
            assert at.dataframe[-1].value["ours_mean"].iloc[0] == 4.5
    assert calls == [0]  # computed once, then served from the memo to both sessions


def test_run_memo_keeps_the_last_entries_and_hands_out_copies():
    from metriclab.ui.shared.runs import RunMemo

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

    from metriclab.ui.shared.compute import collapse_warning

    mask = np.zeros(100, dtype=bool)
    mask[:10] = True
    rng = np.random.default_rng(0)
    spread = rng.normal(size=(100, 2))
    assert collapse_warning(spread, mask) is None
    few = np.repeat(rng.normal(size=(5, 2)), 20, axis=0)
    assert "only 5 distinct" in collapse_warning(few, mask)


def test_distinct_positions_equal_numpys_unique_rows():
    import numpy as np

    from metriclab.ui.shared.compute import distinct_positions

    rng = np.random.default_rng(3)
    for d in (1, 2, 3, 4, 10):  # one integer key per cell up to 3-D, rows sorted above
        Z = np.repeat(rng.normal(size=(300, d)), rng.integers(1, 5, 300), axis=0)
        Z[::7] += 1e-9  # closer than the tolerance: the same position
        Z[::11] += 1e-3  # farther: a new one
        rel = 1e-6 * np.ptp(Z, axis=0).max()
        assert distinct_positions(Z) == np.unique(np.round(Z / rel), axis=0).shape[0]
    assert distinct_positions(np.zeros((5, 2))) == 1 and distinct_positions(np.zeros((0, 2))) == 0


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


# --- 4. presets set every parameter; Reset to defaults -------------------------------------------


def _preset_index(label_start):
    from metriclab.ui.embed.presets import available_presets

    found = [i for i, p in enumerate(available_presets()) if p["label"].startswith(label_start)]
    if not found:
        pytest.skip(f"no preset {label_start!r}")
    return found[0]


def _tdl_state(at):
    return {k: at.session_state[k] for k in at.session_state if str(k).startswith("p.tdl.")}


@pytest.mark.skipif("tdl" not in REGISTRY, reason="tdl not registered")
def test_a_preset_gives_the_same_view_whatever_was_moved_before():
    iris_tdl = _preset_index("Iris · TDL")
    moons = _preset_index("Two moons · TDL")
    fresh = run("embed", {"ds": "iris", "method": "tdl"})
    fresh.button(key=f"preset{iris_tdl}").click().run()
    assert_clean(fresh)
    expected, expected_state = fresh.metric[0].value, _tdl_state(fresh)
    # another session: a moons preset first (heat width 0.25), then graph neighbours moved
    used = run("embed", {"ds": "iris", "method": "tdl"})
    used.button(key=f"preset{moons}").click().run()
    neighbours = used.main.get("slider") + used.main.get("select_slider")
    slider = next(w for w in neighbours if w.key == "p.tdl.n_neighbors")
    slider.set_value(slider.value + 3).run()
    used.button(key=f"preset{iris_tdl}").click().run()
    assert_clean(used)
    assert _tdl_state(used) == expected_state
    assert used.metric[0].value == expected
    spec = REGISTRY["tdl"]
    if "width" in {p.name for p in spec.params}:  # not the moons' 0.25 carried over
        assert used.session_state["p.tdl.width"] == fresh.session_state["p.tdl.width"]


@pytest.mark.skipif("tdl" not in REGISTRY, reason="tdl not registered")
def test_reset_to_defaults_sets_every_parameter_of_the_method_back():
    from metriclab.ui.embed.presets import method_defaults

    at = run("embed", {"ds": "two_moons", "method": "tdl", "p.tdl.k": "9", "p.tdl.lam": "2"})
    assert at.session_state["p.tdl.k"] == 9
    at.button(key="reset_params").click().run()
    assert_clean(at)
    assert _tdl_state(at) == method_defaults(REGISTRY["tdl"])
    assert at.query_params.get("p.tdl.k") in (
        None,
        str(REGISTRY["tdl"].param("k").default),
        [str(REGISTRY["tdl"].param("k").default)],
    )


# --- 7. comparable baselines; presets show their claim over split seeds --------------------------


@pytest.mark.skipif("nca" not in REGISTRY, reason="nca not registered")
def test_a_2d_learned_map_is_scored_against_pca_to_2d_and_the_full_space_is_labelled():
    at = run("embed", {"ds": "iris", "method": "nca", "p.nca.n_components": "2"})
    assert_clean(at)
    labels = [m.label for m in at.metric]
    assert labels[1] == "PCA to 2-D"  # the same output dimension
    assert labels[2] == "Euclidean, 4-D"  # the input space with all of Iris' features
    assert "minus PCA to 2-D" in at.metric[0].proto.help
    assert any(
        "difference to **PCA to 2-D** (same output dimension)" in c.value for c in at.caption
    )


@pytest.mark.skipif("tdl" not in REGISTRY, reason="tdl not registered")
def test_the_landing_view_is_the_papers_demo_where_tdl_beats_le():
    at = run("embed")  # a fresh page, no shared link
    assert_clean(at)
    assert at.session_state["method"] == "tdl"
    assert at.metric[1].label == REGISTRY["le"].label  # same graph, same dimension
    assert float(at.metric[0].value) > float(at.metric[1].value)
    spread = next(m.value for m in at.markdown if "Over split seeds" in m.value)
    assert "beats" in spread and "does not beat" not in spread


def test_every_live_preset_shows_its_claim_on_its_own_split_and_over_seeds():
    from metriclab.ui.embed.presets import available_presets

    at = run("embed", {"ds": "iris", "method": "pca"})
    for i, preset in enumerate(available_presets()):
        if preset["mode"] != "live":
            continue
        at.button(key=f"preset{i}").click().run()
        assert_clean(at)
        spread = next(m.value for m in at.markdown if "Over split seeds" in m.value)
        if REGISTRY[preset["method"]].baseline is None:
            continue
        own, reference = float(at.metric[0].value), float(at.metric[1].value)
        if preset["method"] != "le":  # a baseline preset teaches nothing to beat
            assert own > reference, (preset["label"], own, reference)
            assert "beats" in spread and "does not beat" not in spread, (preset["label"], spread)


def test_seed_spread_is_honest_about_losses():
    from metriclab.ui.shared.compute import seed_spread

    ten = np.linspace(0.80, 0.89, 10)
    losing = seed_spread(ten - 0.05 - ten / 100, ten)
    assert (losing.wins, losing.ties, losing.losses) == (0, 0, 10)
    assert losing.verdict("NCA", "PCA").startswith("NCA loses to PCA (paired Wilcoxon")
    winning = seed_spread(ten + 0.02 + ten / 100, ten)
    assert winning.verdict("A", "B").startswith("A beats B")
    # 5 wins, 4 ties, 1 loss (issue 31's example): the test does not reject, so no "beats"
    mixed = seed_spread(ten + [0.01, 0.02, 0.01, 0.03, 0.02, 0, 0, 0, 0, -0.04], ten)
    assert (mixed.wins, mixed.ties, mixed.losses) == (5, 4, 1)
    assert mixed.verdict("A", "B").startswith("No clear difference between A and B")
    assert "beats" not in mixed.verdict("A", "B")
    # three seeds can never reject at 0.05: no verdict from three losses
    assert "No clear difference" in seed_spread([0.9, 0.8, 0.85], [0.95, 0.9, 0.9]).verdict(
        "A", "B"
    )


# --- 9. a Fisher margin of rounding size is a tie -----------------------------------------------


@pytest.mark.skipif("zhang_mds" not in REGISTRY, reason="zhang not registered")
def test_delta3_on_two_rings_is_a_fisher_tie_not_separable():
    at = run(
        "dissimilarity",
        {"ds": "two_rings", "dmethod": "zhang_mds", "p.zhang_mds.dissimilarity": "delta3"},
    )
    assert_clean(at)
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert ":gray-badge[:material/drag_handle: Fisher: a tie]" in badges
    assert not any("Fisher separable" in b for b in badges)  # before: a green badge
    assert any("a tie, not a separation" in c.value for c in at.caption)


# --- 6. uploads: the size limit is on screen; too few rows is said as such ----------------------


def test_data_page_shows_the_upload_size_limit_before_a_file_is_chosen():
    at = run("data", {"ds": "iris"})
    assert_clean(at)
    assert any("at most **20 MB**" in c.value for c in at.sidebar.caption)  # not only a tooltip


def test_a_one_row_upload_is_told_it_needs_more_rows():
    from metriclab.ui.shared import session_data

    with pytest.raises(ValueError, match=r"1 data row\(s\); at least 4 are needed"):
        session_data.register_upload(b"x1,x2,label\n1,2,a\n", "one.csv")


# --- 10. rough edges ------------------------------------------------------------------------------


def _display_values(element):
    import pyarrow as pa

    styler = element.proto.arrow_data.styler
    return pa.ipc.open_stream(styler.display_values).read_all().to_pandas()


def test_compare_summary_shows_no_none_cells():
    at = run("compare", {"cds": "iris", "cm": "pca", "splits": "2"})
    at.button[0].click().run()
    assert_clean(at)
    shown = _display_values(at.dataframe[0])
    text = shown.astype(str).to_numpy().ravel().tolist()
    assert "None" not in text and "nan" not in text
    assert "–" in text  # the baseline's own p-value: an empty cell, drawn as a dash
    # and no missing value in the data either: the browser draws one as "None" whatever the styler
    assert not at.dataframe[0].value.isna().any().any()
    assert any("input space with every feature" in c.value for c in at.caption)  # which baseline


def test_method_picker_shows_labels_without_paper_slugs():
    at = run("embed", {"ds": "iris", "method": "pca"})
    picker = at.sidebar.selectbox(key="method")
    shown = list(picker.options)  # as the picker prints them
    assert "Euclidean (input space)" in shown
    assert not any("-20" in s or "_" in s for s in shown), shown  # e.g. zhang-2003-discriminant…


@pytest.mark.skipif("nca" not in REGISTRY, reason="nca not registered")
def test_output_dimension_slider_is_capped_at_the_number_of_features():
    at = run("embed", {"ds": "iris", "method": "nca", "p.nca.n_components": "40"})
    assert_clean(at)
    widgets = at.main.get("slider") + at.main.get("select_slider")
    dim = next(w for w in widgets if w.key == "p.nca.n_components")
    assert dim.value == 4  # the URL's 40 clamped to Iris' 4 features
    top = dim.proto.max if hasattr(dim.proto, "max") else max(dim.options)
    assert float(top) == 4


def test_spectrum_ticks_are_whole_numbers():
    import numpy as np

    from metriclab import plots

    fig = plots.spectrum(np.linspace(0, 1, 6), n_used=2)
    assert fig.layout.xaxis.dtick == 1 and fig.layout.xaxis.tick0 == 1
    assert plots.spectrum(np.ones(60)).layout.xaxis.dtick == 5


def test_scrub_play_button_sits_beside_the_slider_not_on_it():
    import numpy as np

    from metriclab import plots

    frames = [np.random.default_rng(i).normal(size=(20, 2)) for i in range(3)]
    fig = plots.embedding_animation(frames, ["a", "b", "c"], np.arange(20) % 2)
    slider, button = fig.layout.sliders[0], fig.layout.updatemenus[0]
    assert button.xanchor == "right" and button.x <= slider.x  # the button ends where it starts


def test_tangent_page_names_transformations_and_wraps_titles():
    from metriclab import datasets
    from tests.apptest_helpers import figures as figs

    image_set = "usps" if "usps" in datasets.names() else "digits"
    at = run("tangent", {"tds": image_set, "pool": "500"})
    assert_clean(at)
    box = at.selectbox(key="tr")
    assert box.format_func("x_translation") == "shift left/right"
    tangents = figs(at)[1]
    texts = tangents["layout"]["xaxis"]["ticktext"]
    assert not any("_" in t for t in texts)
    lines = [re.sub("<[^>]+>", "", line) for t in texts for line in t.split("<br>")]
    assert all(len(line) <= 12 for line in lines), lines  # fits a 16-px column (tags not drawn)


def test_image_methods_are_not_offered_for_vector_data_and_say_why():
    at = run("embed", {"ds": "iris", "method": "tangent_knn"})
    assert not at.exception and not at.error
    picker = at.sidebar.selectbox(key="method")
    assert REGISTRY["tangent_knn"].label not in picker.options
    assert at.session_state["method"] != "tangent_knn"
    greyed = " ".join(c.value for c in at.sidebar.caption if "Not offered" in c.value)
    assert greyed.startswith("Not offered here (needs images; iris has none): ")
    assert REGISTRY["tangent_knn"].label in greyed
    assert any("**Method**" in w.value for w in at.warning)  # the link's method, said once


def small_digits_split():
    """Every sixth 8×8 digit (300 images) and a half-labeled split of them."""
    import numpy as np

    from metriclab.datasets import load
    from metriclab.ui.shared.compute import split_mask

    ds = load("digits")
    keep = np.arange(0, ds.n_samples, 6)
    ds.X, ds.y = ds.X[keep], ds.y[keep]
    return ds, split_mask(ds.y, split_ref("fraction", 0.5, 0))


def test_slow_image_methods_report_their_stages():
    from metriclab.ui.shared.compute import fit_view

    ds, mask = small_digits_split()
    heard = []
    request = fit_request("digits", "tangent_knn")
    result = fit_view((ds, mask), request, progress=lambda *a: heard.append(a))
    assert heard[0][0] == 0 and "fitting" in heard[0][2]
    assert heard[-1][0] == heard[-1][1] == int((~mask).sum())  # every test image counted
    assert 0 <= result.accuracy <= 1
    # and on the page: the progress path runs twice in two sessions without an error
    for _ in range(2):
        at = run("embed", {"ds": "digits", "method": "tangent_knn", "cap": "300"})
        assert_clean(at)
        at.run()
        assert_clean(at)


def test_the_run_memos_refuse_another_sessions_upload_even_after_it_was_computed():
    """A comparison memoised for session A's upload is not handed to session B (issue 17's rule
    holds for the memos below streamlit too)."""
    from streamlit.testing.v1 import AppTest

    def owner():
        import streamlit as st

        from metriclab.ui.compare import run_comparison
        from metriclab.ui.data import handle_upload

        rows = "\n".join(f"{i % 7},{(i * 3) % 5},{'ab'[i % 2]}" for i in range(40))
        key = handle_upload(f"x,z,kind\n{rows}\n".encode(), "memo-a.csv")
        from metriclab.ui.compare import ComparisonRequest

        run_comparison(ComparisonRequest((key,), ("pca",), 1, 0.1))  # computed and memoised for A
        st.session_state["key"] = key

    a = AppTest.from_function(owner, default_timeout=TIMEOUT).run()
    assert_clean(a)
    key = a.session_state["key"]
    assert key.startswith("upload:")

    def peek(key):
        import streamlit as st

        from metriclab.ui.compare import ComparisonRequest, run_comparison
        from metriclab.ui.shared import runs
        from metriclab.ui.shared.errors import guarded
        from metriclab.ui.shared.fit_request import DataRef, FitRequest, SplitRef

        if guarded(run_comparison, ComparisonRequest((key,), ("pca",), 1, 0.1)) is not None:
            st.write("LEAK comparison")
        request = FitRequest(DataRef(key), SplitRef("fraction", 0.1, 0), "tangent_knn")
        if guarded(runs.image_fit, request) is not None:
            st.write("LEAK image fit")

    b = AppTest.from_function(peek, args=(key,), default_timeout=TIMEOUT).run()
    assert not b.exception
    assert not [m.value for m in b.markdown if "LEAK" in m.value]
    assert len(b.error) == 2 and all("not available in this session" in e.value for e in b.error)


def test_a_form_is_ready_only_after_it_was_drawn_with_its_values():
    def script():
        import streamlit as st

        from metriclab.ui.shared.state import form_is_ready, mark_form_drawn

        seen = st.session_state.setdefault("seen", [])
        ready = form_is_ready("f", ("a",))
        seen.append(ready)
        st.session_state.setdefault("a", 1)
        mark_form_drawn("f", rerun=False)

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert at.session_state["seen"] == [False]  # first run: not ready
    at.run()
    assert at.session_state["seen"] == [False, True]
    del at.session_state["a"]  # the form's values dropped (another page ran)
    at.run()
    assert at.session_state["seen"] == [False, True, False]


def test_compare_run_is_enabled_after_the_first_runs_automatic_rerun():
    at = run("compare", {"cds": "iris", "cm": "pca", "splits": "2"})
    assert not at.exception
    assert at.button[0].disabled is False  # the first run drew it disabled and reran at once
    at.button[0].click().run()
    assert not at.error and len(at.dataframe) == 1


# --- 7. Compare: a learned 2-D map is scored against PCA to 2-D as well as the input space -------


def test_compare_scores_a_2d_map_against_pca_to_2d_on_the_same_splits():
    from metriclab.ui.compare import run_comparison

    at = run("compare", {"cds": "iris", "cm": "nca", "splits": "3"})
    at.button[0].click().run()
    assert_clean(at)
    bars = figures(at)[0]
    assert [t["name"] for t in bars["data"]] == ["Euclidean, all features", "PCA to 2-D", "NCA"]
    table = at.dataframe[0].value.set_index("label")
    nca = table.loc["NCA"]
    assert nca["same-dimension baseline"] == "PCA to 2-D"
    # the differences, recomputed from the per-split results: same splits, same scaling
    from metriclab.ui.compare import ComparisonRequest

    results = run_comparison(ComparisonRequest(("iris",), ("nca",), 3, 0.1))
    by = results.pivot(index="split", columns="label", values="accuracy")
    pca = results[results["label"] == "PCA to 2-D"]
    assert set(pca["preprocess"]) == set(results.loc[results["method"] == "nca", "preprocess"])
    assert pca["seed"].tolist() == results.loc[results["method"] == "nca", "seed"].tolist()
    pca_diff = (by["NCA"] - by["PCA to 2-D"]).mean()  # as the page writes it: three decimals
    assert float(nca["diff vs PCA (same dimension)"]) == pytest.approx(pca_diff, abs=5e-4)
    euclid = (by["NCA"] - by["Euclidean, all features"]).mean()
    assert float(nca["diff vs Euclidean (all features)"]) == pytest.approx(euclid, abs=5e-4)
    wins = int(((by["NCA"] - by["PCA to 2-D"]) > 1e-12).sum())
    assert nca["W/T/L vs PCA (same dimension)"].startswith(f"{wins}/")
    for baseline in ("Euclidean, all features", "PCA to 2-D"):  # a baseline against itself: empty
        assert table.loc[baseline, "diff vs PCA (same dimension)"] == "–"
    assert table.loc["Euclidean, all features", "diff vs Euclidean (all features)"] == "–"
    # three splits: the caption says no difference can be shown at 0.05 (smallest p 0.25)
    assert table["p vs Euclidean (all features)"].replace("–", "1").astype(float).min() >= 0.25
    note = " ".join(c.value for c in at.caption)
    assert "smallest possible p is 0.25" in note
    from metriclab.ui.compare import p_values_in, summary_table

    assert p_values_in(summary_table(results)) == 3  # PCA and NCA vs Euclidean, NCA vs PCA


def test_compare_with_pca_chosen_does_not_run_it_twice():
    from metriclab.ui.compare import with_baselines

    assert with_baselines(("nca", "pca")) == [("nca", {}), ("pca", {})]
    assert with_baselines(("nca", "tdl")) == [
        ("pca", {"n_components": 2}),
        ("nca", {}),
        ("tdl", {}),
    ]
    assert with_baselines(("pca",)) == [("pca", {})]


# --- 10. the LMNN fit inside the tangent method reports its own progress -------------------------


def test_tangent_lmnn_reports_residuals_then_each_lmnn_iteration_then_the_test_images():
    from metriclab.ui.shared import runs
    from metriclab.ui.shared.compute import fit_view

    ds, mask = small_digits_split()
    heard = []
    params = {"max_iter": 15}
    request = fit_request("digits", "tangent_lmnn", params)
    fit_view((ds, mask), request, progress=lambda *a: heard.append(a))
    stages = [m.split(" ")[0] for _, _, m in heard]
    residuals = [h for h in heard if "shortest tangent vectors" in h[2]]
    lmnn = [h for h in heard if h[2].startswith("LMNN iteration")]
    assert residuals[-1][:2] == (int(mask.sum()), int(mask.sum()))  # every training image
    assert len(lmnn) >= 2 and [h[0] for h in lmnn] == list(range(1, len(lmnn) + 1))
    assert all(h[1] == 15 for h in lmnn) and len(lmnn) <= 15
    assert "loss" in lmnn[0][2]
    first_test = next(i for i, m in enumerate(heard) if "tangent distances" in m[2])
    assert stages.index("LMNN") < first_test  # the fit's stages come before the test images
    # through the page's memo: progress is heard while computing, not on a repeat (a hit)
    key = fit_request("digits", "tangent_lmnn", {"max_iter": 5}, ("fraction", 0.3, 0), cap=300)
    runs._image_fits.clear()
    first, again = [], []
    runs.image_fit(key, progress=lambda *a: first.append(a))
    runs.image_fit(key, progress=lambda *a: again.append(a))
    assert any(m.startswith("LMNN iteration") for _, _, m in first) and not again


@pytest.mark.parametrize("n_splits", [2, 3, 4, 5, 6, 8])
def test_compares_note_says_what_its_p_can_show_with_so_many_splits(n_splits):
    """The smallest two-sided p of Wilcoxon's test with n splits is that of n differences of one
    sign (2 / 2^n, computed here by scipy); the note says 0.05 is out of reach exactly when it is."""
    from scipy.stats import wilcoxon

    from metriclab.evaluation.summary import paired_test
    from metriclab.ui.compare import p_note

    # one split tied (a zero difference, dropped) and the rest equal: exact from scipy 1.15 only
    # (1.11's approximation gave 0.043 for six such splits: pyproject's pin)
    smallest = paired_test(np.r_[0.0, np.full(n_splits, 0.01)])
    assert smallest == pytest.approx(wilcoxon(np.arange(1, n_splits + 1)).pvalue)
    note = p_note(n_splits)
    assert ("can be shown at the 0.05 level" in note) == (smallest >= 0.05), (smallest, note)
    if smallest >= 0.05:
        assert f"smallest possible p is {smallest:.3g}" in note
    # several tests in one table: how many would fall below 0.05 by chance, where any can
    many = p_note(n_splits, 20)
    assert ("of the table's 20, about 1.0 would fall below 0.05 by chance" in many) == (
        smallest < 0.05
    )


def test_compares_p_is_written_at_a_readers_precision():
    from metriclab.ui.compare import p_text

    assert [p_text(p) for p in (1.0, 0.125, 0.0625, 0.01953125, 0.0004)] == [
        "1",
        "0.125",
        "0.0625",
        "0.0195",
        "<0.001",
    ]


def test_compares_q_adjusts_every_p_of_the_table_together():
    """Compare's p are per test, uncorrected; with many tests in one table a statistician wants
    them adjusted together: q is Benjamini-Hochberg over every p of the table (both baselines),
    never below its p, empty where there is no test."""
    from scipy.stats import false_discovery_control

    from metriclab.ui.compare import ComparisonRequest, run_comparison, summary_table

    results = run_comparison(ComparisonRequest(("iris", "wine"), ("nca", "pca"), 6, 0.1))
    table = summary_table(results)
    p = table[["p vs Euclidean (all features)", "p vs PCA (same dimension)"]].to_numpy(float)
    q = table[["q vs Euclidean (all features)", "q vs PCA (same dimension)"]].to_numpy(float)
    tested = np.isfinite(p)
    assert (
        tested.sum() == 6 and (np.isfinite(q) == tested).all()
    )  # 2 sets × (PCA, NCA vs E; NCA vs PCA)
    np.testing.assert_allclose(q[tested], false_discovery_control(p[tested]))
    assert (q[tested] >= p[tested] - 1e-15).all()
    columns = list(table.columns)
    assert (
        columns.index("q vs Euclidean (all features)")
        == columns.index("p vs Euclidean (all features)") + 1
    )
