"""AppTests of the Data, Dissimilarity, Compare, Tangent and Reproduce pages and the router."""

import re

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from metriclab import datasets
from metriclab.methods import REGISTRY
from tests.apptest_helpers import ROOT, figures, run_page, values

TIMEOUT = 180


def run(page, query=None):
    return run_page(page, query, timeout=TIMEOUT)


def n_points(fig):
    return sum(len(values(t["x"])) for t in fig["data"] if t.get("type", "scatter") == "scatter")


def assert_clean(at):
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


# --- Data ---------------------------------------------------------------------------------------


def test_data_page_shows_counts_and_pca_scatter_and_follows_the_data_set():
    at = run("data")
    assert_clean(at)
    counts, pca = None, None
    for fig in figures(at):
        if fig["data"][0]["type"] == "bar":
            counts = fig
        else:
            pca = fig
    assert [int(v) for v in values(counts["data"][0]["x"])] == [100, 100]
    assert n_points(pca) == 200
    at.sidebar.selectbox(key="ds").set_value("iris").run()
    assert_clean(at)
    figs = figures(at)
    assert sum(n_points(f) for f in figs if f["data"][0]["type"] == "scatter") == 150
    assert at.query_params["ds"] in ("iris", ["iris"])
    assert [m.value for m in at.metric][:3] == ["150", "4", "3"]


def test_data_page_generator_parameters_change_the_data():
    at = run("data", {"ds": "two_rings", "d.two_rings.n_samples": "1000"})
    assert_clean(at)
    widget = at.select_slider(key="d.two_rings.n_samples")
    assert at.metric[0].value == str(widget.value)
    assert abs(widget.value - 1000) < 130  # the URL value snapped to the slider's grid
    new = int(widget.options[3])
    widget.set_value(new).run()
    assert_clean(at)
    assert at.metric[0].value == str(new)
    assert at.query_params["d.two_rings.n_samples"] in (str(new), [str(new)])


def test_data_page_shows_example_images_for_image_sets():
    image_sets = [n for n in ("digits", "usps") if n in datasets.names()]
    if not image_sets:
        pytest.skip("no image data set shipped yet")
    at = run("data", {"ds": image_sets[0]})
    assert_clean(at)
    heatmaps = [f for f in figures(at) if f["data"][0]["type"] == "heatmap"]
    assert len(heatmaps) == 1
    ds = datasets.load(image_sets[0])
    assert len(heatmaps[0]["layout"]["annotations"]) == 6 * ds.n_classes


def test_a_valid_upload_becomes_a_data_set_on_every_page_of_its_session():
    """Uploaded in one session, usable on the other pages of that session (other sessions: see
    tests/test_sessions.py)."""
    rows = "\n".join(f"{i % 7},{(i * 3) % 5},{'ab'[i % 2]}" for i in range(40))
    at = AppTest.from_file(str(ROOT / "pages" / "data.py"), default_timeout=TIMEOUT).run()
    at.sidebar.file_uploader(key="upload").set_value(
        ("mine.csv", f"x,z,kind\n{rows}\n".encode(), "text/csv")
    ).run()
    assert_clean(at)
    key = at.session_state["ds"]
    assert at.subheader[0].value == "mine.csv"
    assert [m.value for m in at.metric][:3] == ["40", "2", "2"]
    at.switch_page("embed.py").run()
    at.sidebar.selectbox(key="ds").set_value(key).run()
    assert_clean(at)
    assert at.session_state["ds"] == key


def test_malformed_upload_gives_st_error_with_the_reason(monkeypatch):
    def script():
        from metriclab.ui.data import handle_upload

        handle_upload(b"a,b,label\n1,oops,0\n2,3,1\n", "bad.csv")

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert len(at.error) == 1 and "bad.csv" in at.error[0].value


def test_upload_errors_are_reported_even_for_loader_failures(monkeypatch):
    import metriclab.datasets as ds_module

    def broken(file, label_column=None):
        raise ValueError("row 3, column 'b': 'x' is not a number")

    monkeypatch.setattr(ds_module, "load_csv", broken)

    def script():
        from metriclab.ui.data import handle_upload

        st_key = handle_upload(b"a,b\n1,x\n", "other.csv", None)
        assert st_key is None

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert "row 3, column 'b'" in at.error[0].value


# --- Dissimilarity ------------------------------------------------------------------------------


@pytest.mark.skipif("zhang_mds" not in REGISTRY, reason="zhang_mds not registered")
def test_dissimilarity_page_shows_sorted_matrices_checks_spectrum_and_stress():
    at = run("dissimilarity", {"ds": "two_rings", "dmethod": "zhang_mds"})
    assert_clean(at)
    figs = figures(at)
    heatmaps = [f for f in figs if f["data"][0]["type"] == "heatmap"]
    assert len(heatmaps) == 2  # kernel and dissimilarity
    titles = [f["layout"]["title"]["text"] for f in figs]
    assert any("spectrum" in t for t in titles) and any("stress" in t.lower() for t in titles)
    D = values(heatmaps[1]["data"][0]["z"])
    n_lab = D.shape[0]
    assert D.shape == (n_lab, n_lab) and np.allclose(np.diag(D), 0, atol=1e-6)
    # rows sorted by class: with the discriminant kernel, the first block is one class, so its
    # within-block dissimilarities are smaller on average than those across the boundary
    half = n_lab // 2
    assert D[:half, :half].mean() < D[:half, half:].mean()
    badges = " ".join(m.value for m in at.markdown)
    assert "Euclidean" in badges and "Fisher" in badges


@pytest.mark.skipif("zhang_mds" not in REGISTRY, reason="zhang_mds not registered")
def test_dissimilarity_choice_delta_paths_render():
    at = run("dissimilarity", {"ds": "iris", "dmethod": "zhang_mds"})
    for choice in ("delta1", "delta4"):
        at.selectbox(key="p.zhang_mds.dissimilarity").set_value(choice).run()
        assert_clean(at)
        assert len([f for f in figures(at) if f["data"][0]["type"] == "heatmap"]) == 2


@pytest.mark.skipif("tdl" not in REGISTRY, reason="tdl not registered")
def test_dissimilarity_page_shows_the_graph_affinity_of_spectral_methods():
    at = run("dissimilarity", {"ds": "two_moons", "dmethod": "tdl"})
    assert_clean(at)
    figs = figures(at)
    affinity = [f for f in figs if f["layout"].get("title", {}).get("text") == "Graph affinity W"]
    assert len(affinity) == 1
    W = values(affinity[0]["data"][0]["z"])
    assert W.shape == (200, 200) and np.allclose(W, W.T) and (W >= 0).all()


@pytest.mark.skipif("knca" not in REGISTRY, reason="knca not registered")
def test_dissimilarity_page_shows_alignment_weights_of_kernelised_learners():
    at = run("dissimilarity", {"ds": "iris", "dmethod": "knca", "p.knca.weighting": "aligned"})
    assert_clean(at)
    bars = [f for f in figures(at) if "Alignment" in f["layout"].get("title", {}).get("text", "")]
    assert len(bars) == 1
    weights = values(bars[0]["data"][0]["y"])
    assert (weights >= 0).all() and weights.sum() > 0


EMBEDDERS = sorted(k for k, s in REGISTRY.items() if s.output == "embedding" and k != "euclidean")


@pytest.mark.parametrize("key", EMBEDDERS)
def test_every_embedding_method_renders_on_the_dissimilarity_page(key):
    at = run("dissimilarity", {"ds": "iris", "dmethod": key})
    assert_clean(at)
    heatmaps = [f for f in figures(at) if f["data"][0]["type"] == "heatmap"]
    assert heatmaps, "no matrix shown"
    badges = " ".join(m.value for m in at.markdown)
    assert "Euclidean" in badges and "Fisher" in badges


def test_dissimilarity_page_falls_back_to_input_distances():
    at = run("dissimilarity", {"ds": "iris", "dmethod": "pca"})
    assert_clean(at)
    assert any("Euclidean distances" in i.value for i in at.info)
    assert len([f for f in figures(at) if f["data"][0]["type"] == "heatmap"]) == 1


# --- Compare ------------------------------------------------------------------------------------


def test_compare_runs_only_on_the_button_and_shows_chart_table_downloads():
    at = run("compare")
    assert_clean(at)
    assert not figures(at)
    at.multiselect(key="cds").set_value(["iris"])
    at.multiselect(key="cm").set_value(["pca"])
    at.slider(key="splits").set_value(2)
    at.button[0].click().run()
    assert_clean(at)
    bars, boxes = figures(at)
    assert [t["name"] for t in bars["data"]] == ["Euclidean, all features", "PCA to 2-D"]
    assert all("error_y" in t for t in bars["data"])
    table = at.dataframe[0].value
    assert set(table["method"]) == {"euclidean", "pca"}
    assert (table["n_splits"] == 2).all()
    assert len(at.get("download_button")) == 4  # CSV, summary, HTML and the notebook
    assert at.query_params["cm"] in ("pca", ["pca"])


def test_compare_protocol_and_fraction_paths():
    at = run("compare", {"cds": "iris", "cm": "pca", "splits": "2"})
    at.selectbox(key="protocol").set_value("transductive")
    at.select_slider(key="cfrac").set_value(0.2)
    at.button[0].click().run()
    assert_clean(at)
    table = at.dataframe[0].value
    assert set(table["protocol"]) == {"transductive"}
    assert at.query_params["cfrac"] in ("0.2", ["0.2"])


def test_compare_an_image_method_on_vector_data_is_reported_not_raised():
    at = run("compare", {"cds": "iris", "cm": "tangent_knn", "splits": "1"})
    at.button[0].click().run()
    assert not at.exception
    messages = " ".join(m.value for m in [*at.warning, *at.error])
    assert "image" in messages.lower()


def test_compare_without_methods_is_an_error_message():
    at = run("compare")
    at.multiselect(key="cm").set_value([])
    at.button[0].click().run()
    assert not at.exception
    assert "at least one" in at.error[0].value


def test_comparison_html_download_is_self_contained():
    from metriclab.ui.compare import comparison_figures, figure_html

    results = pd.DataFrame(
        {
            "dataset": ["iris"] * 4,
            "method": ["euclidean", "euclidean", "pca", "pca"],
            "label": ["Euclidean", "Euclidean", "PCA", "PCA"],
            "split": [0, 1, 0, 1],
            "accuracy": [0.9, 0.92, 0.8, 0.85],
            "status": ["ok"] * 4,
        }
    )
    bars, boxes = comparison_figures(results)
    assert list(values(bars.data[1].y)) == pytest.approx([0.825])
    html = figure_html(bars).decode()
    assert figure_html(bars).decode() == html  # the same bytes every rerun: one stable media file
    assert "<html>" in html and "Plotly.newPlot" in html and 'src="http' not in html


# --- Tangent ------------------------------------------------------------------------------------


def test_tangent_page_shows_vectors_moves_neighbours_and_error_rates():
    image_set = "usps" if "usps" in datasets.names() else "digits"
    at = run("tangent", {"tds": image_set, "pool": "500"})
    assert_clean(at)
    figs = figures(at)
    assert len(figs) == 5  # query, tangent vectors, moved images, two neighbour rows
    from metriclab.methods.tangent import TRANSFORMS

    tangents = figs[1]
    assert len(tangents["layout"]["xaxis"]["ticktext"]) == len(TRANSFORMS)  # a title per vector
    at.selectbox(key="tr").set_value("x_translation").run()
    assert_clean(at)
    assert "shift left/right" in figures(at)[2]["layout"]["title"]["text"]  # not x_translation
    at.number_input(key="q").set_value(3).run()
    at.button(key="run_errors").click().run()
    assert_clean(at)
    rates = [float(m.value.rstrip(" %")) for m in at.metric]
    assert len(rates) == 2 and all(0 <= r <= 100 for r in rates)
    # the paired test of the two rules on the same images, from the images only one gets wrong
    note = " ".join(c.value for c in at.caption)
    counts = re.search(r"On these (\d+) images (\d+) are wrong .* only and (\d+) under", note)
    n, only_euclidean, only_tangent = (int(g) for g in counts.groups())
    assert n >= 200 and only_euclidean - only_tangent == pytest.approx(
        (rates[0] - rates[1]) * n / 100, abs=1
    )
    assert "McNemar's exact p = " in note


def test_held_out_errors_count_what_the_accuracy_scores():
    """The per-image errors behind the Tangent page's test are the ones its error rates count:
    1-NN in an embedding (with its ties), or a classifier's own predictions."""
    from metriclab.evaluation import embedding_accuracy
    from metriclab.ui.shared.compute import ViewResult
    from metriclab.ui.tangent import error_comparison, held_out_errors

    ds = datasets.load("digits")
    mask = np.random.default_rng(0).random(ds.n_samples) < 0.3
    Z = np.round(ds.X[:, :8] / 8)  # coarse: many tied distances
    embedded = ViewResult("euclidean", mask, embedding_accuracy(Z, ds.y, mask), Z=Z)
    errors = held_out_errors(embedded, ds.y)
    assert errors.size == np.count_nonzero(~mask)
    assert errors.mean() == pytest.approx(1 - embedded.accuracy)
    predictions = ds.y.copy()
    predictions[~mask] = (ds.y[~mask] + (np.arange(errors.size) % 4 == 0)) % 10
    classified = ViewResult("tangent_knn", mask, 0.75, predictions=predictions)
    wrong = held_out_errors(classified, ds.y)
    assert wrong.tolist() == (np.arange(errors.size) % 4 == 0).tolist()
    note = error_comparison(errors, wrong)
    only_e, only_t = int(np.sum(errors & ~wrong)), int(np.sum(wrong & ~errors))
    assert f"{only_e} are wrong under the Euclidean distance only and {only_t}" in note


def test_tangent_page_transformation_set_and_one_sided_paths():
    at = run("tangent", {"tds": "digits", "pool": "500", "tset": "translation", "two": "0"})
    assert_clean(at)
    assert at.selectbox(key="tset").value == "translation"
    assert at.checkbox(key="two").value is False
    # the row shows all seven tangents; the five the distance leaves out say so
    tangents = figures(at)[1]["layout"]
    titles = tangents["xaxis"]["ticktext"]
    assert sum("not used" in t for t in titles) == 5 and "not used" not in titles[0] + titles[1]
    assert "2 of 7" in tangents["title"]["text"]
    at.checkbox(key="two").check().run()
    assert_clean(at)
    assert len(figures(at)) == 5


# --- Reproduce ----------------------------------------------------------------------------------


def test_reproduce_page_runs_the_fast_version(monkeypatch):
    import metriclab.reproduce as reproduce

    calls = []

    def fake_run(fast, n_splits, seed, progress):
        calls.append(fast)
        if progress:
            progress(1, 1, "done")
        return pd.DataFrame(
            {
                "setting": ["wine"],
                "method": ["TDL"],
                "metric": ["1-NN error %"],
                "paper": [5.0],
                "ours_mean": [4.5],
                "ours_std": [0.5],
                "n_splits": [3],
                "protocol": ["10% labeled"],
                "note": [""],
            }
        )

    fake = reproduce.Experiment("fake-table", "A fake table", "paper-x", fake_run, "for the test")
    monkeypatch.setattr(reproduce, "experiments", lambda: {"fake-table": fake})
    at = run("reproduce", {"show": "tables"})
    assert_clean(at)
    assert any("No stored full run" in i.value for i in at.info)
    at.button(key="run_fast").click().run()
    assert_clean(at)
    assert calls == [True]
    fig = figures(at)[0]
    assert [t["name"] for t in fig["data"]] == ["paper", "ours"]
    assert at.dataframe[0].value["ours_mean"].iloc[0] == 4.5


def test_reproduce_page_shows_stored_full_runs():
    from metriclab.reproduce import experiments

    stored = [n for n in experiments() if (ROOT / "docs" / "reproduction" / f"{n}.csv").exists()]
    stored = [n for n in stored if n == "tangent-usps"] or stored  # a short table: bars
    if not stored:
        pytest.skip("no full run committed yet in docs/reproduction/")
    at = run("reproduce", {"exp": stored[0]})  # an experiment's link opens the tables view
    assert_clean(at)
    table = pd.read_csv(ROOT / "docs" / "reproduction" / f"{stored[0]}.csv")
    shown = at.dataframe[0].value
    assert len(shown) == len(table) and list(shown["setting"]) == list(table["setting"])
    assert figures(at)[0]["data"][0]["name"] == "paper"


def test_reproduce_tables_write_the_papers_digits_and_ours_to_four():
    """94.74 as the paper printed it (was 94.740000), ours 95.49 ± 1.377, a gap as '–', with and
    without gaps in the column (text or a numeric column's display format)."""
    from metriclab.ui.reproduce import TABLE_FORMATS
    from metriclab.ui.shared.widgets import display_table

    full = pd.DataFrame({"paper": [94.74, 5.5], "ours_mean": [95.486179, 95.2016]})
    gaps = full.assign(ours_std=[1.377419, np.nan])
    for frame in (full, gaps):
        html = display_table(frame, TABLE_FORMATS).to_html()
        assert "94.74<" in html and "5.5<" in html and "95.49<" in html and "95.20<" in html
        assert "94.740000" not in html and "95.486179" not in html
    assert display_table(gaps, TABLE_FORMATS).data["ours_std"].tolist() == ["1.377", "–"]


def test_router_serves_every_page():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert_clean(at)
    assert at.title[0].value == "metriclab"  # the home page, linking to every page
    links = [el.proto.page for el in at.get("page_link")]
    from metriclab.ui.navigation import available

    assert len(links) == len(available()) - 1  # every page but Home
    at.switch_page(str(ROOT / "pages" / "embed.py")).run()
    assert_clean(at)
    assert at.title[0].value == "Embed"
    at.switch_page(str(ROOT / "pages" / "data.py")).run()
    assert_clean(at)
    assert at.title[0].value == "Data"


def test_reproduce_opens_on_the_claims_with_a_badge_per_claim_filtered_by_paper():
    """The claims view (the default) shows every claim with its verdict from the rule; the paper
    filter keeps that paper's claims; a claim's table button opens the tables view on it."""
    from metriclab.reproduce import verdicts

    results = verdicts.evaluate_all()
    at = run("reproduce")
    assert_clean(at)
    html_text = " ".join(m.value for m in at.markdown)
    for v in results[:5]:
        assert v.claim["quote"][:40] in html_text
    words = {v.word for v in results}
    assert all(f">{w}</span>" in html_text for w in words)
    # a claim of several parts lists its headline reading's parts one per line with each outcome;
    # the other readings are folded under their verdicts (they were one run-on paragraph)
    many = next(v for v in results if len(v.parts) > 2 and len(v.readings) > 1)
    reading = next(iter(many.readings))
    lines = [f"- {p.label}: {p.text} (**{p.state}**)" for p in many.parts]
    card = next(m.value for m in at.markdown if lines[0] in m.value)
    assert card.startswith(f"**Ours** (*{reading}* reading):")
    assert all(line in card for line in lines), lines
    assert card.count("\n- ") == len(many.parts)
    folded = [e.label for e in at.expander if e.label.startswith("Other readings:")]
    assert len(folded) == sum(len(v.readings) > 1 for v in results)
    at.radio(key="paper").set_value("kpca").run()
    shown = " ".join(m.value for m in at.markdown)
    assert all((v.claim["quote"][:40] in shown) == (v.claim["paper"] == "kpca") for v in results)
    assert at.query_params["paper"] in ("kpca", ["kpca"])
    button = next(b for b in at.button if b.key.startswith("open_") and b.key.endswith("kpca-nca"))
    button.click().run()
    assert at.session_state["show"] == "tables" and at.session_state["exp"] == "kpca-nca"
    assert at.dataframe, "the table is not shown"


def test_a_sweep_table_is_drawn_as_lines_over_its_parameter():
    at = run("reproduce", {"show": "tables", "exp": "tdl-moons"})
    assert_clean(at)
    fig = figures(at)[0]
    assert fig["data"][0]["type"] == "scatter" and fig["data"][0]["mode"] == "lines+markers"
    assert fig["layout"]["xaxis"]["title"]["text"] == "λ"


def _narrow_and_wide_page():
    import streamlit as st

    from metriclab.ui.shared.state import Rule, remember, seed_widget

    if "_remember" in st.session_state:
        remember({"choice": st.session_state.pop("_remember")})
    options = ["a", "b", "big"] if st.session_state.get("_page") == "wide" else ["a", "b"]
    seed_widget("choice", Rule("a", options, label="Choice", near={"big": "b"}.get))
    st.selectbox("Choice", options, key="choice")


def test_a_value_a_page_cannot_show_stands_in_and_the_choice_comes_back_where_allowed():
    """A page that cannot show the person's choice shows a stand-in (its `near`, else the default)
    with a notice; the choice stays the session's, so a page that allows it shows it again; once
    the person changes the widget there, their new value is the choice."""
    at = AppTest.from_function(_narrow_and_wide_page, default_timeout=TIMEOUT)
    at.session_state["_page"] = "wide"
    at.run()
    at.selectbox(key="choice").set_value("big").run()
    at.session_state["_page"] = "narrow"
    at.run()
    assert at.selectbox(key="choice").value == "b"
    assert ["**Choice**: big is not available here; using b"] == [w.value for w in at.warning]
    at.run()  # a rerun there keeps the stand-in and the choice behind it
    at.session_state["_page"] = "wide"
    at.run()
    assert at.selectbox(key="choice").value == "big" and not at.warning
    at.session_state["_page"] = "narrow"
    at.run()
    at.selectbox(key="choice").set_value("a").run()  # the person's own choice there
    at.session_state["_page"] = "wide"
    at.run()
    assert at.selectbox(key="choice").value == "a" and not at.warning
    at.selectbox(key="choice").set_value("big").run()
    at.session_state["_page"] = "narrow"
    at.run()
    at.session_state["_remember"] = "b"  # a preset or a lesson step chooses the stand-in's value
    at.run()
    at.session_state["_page"] = "wide"
    at.run()
    assert at.selectbox(key="choice").value == "b", "the stand-in's old choice came back"


def test_all_of_mnist_on_embed_is_its_sample_on_data_and_all_of_it_again_on_embed():
    """Found in Chromium: after Embed on all of MNIST, the Data page showed two moons (MNIST is
    offered on Embed only) and Embed then reopened on two moons, "mnist is not available here"."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page(str(ROOT / "pages" / "embed.py"))
    at.query_params.update({"ds": "mnist", "cap": "1000", "method": "pca"})
    at.run()
    assert_clean(at)
    assert at.sidebar.selectbox(key="ds").value == "mnist"
    at.switch_page(str(ROOT / "pages" / "data.py")).run()
    assert_clean(at)
    assert at.sidebar.selectbox(key="ds").value == "mnist_5000"
    assert any("mnist — " in w.value and "using mnist_5000" in w.value for w in at.warning)
    at.switch_page(str(ROOT / "pages" / "embed.py")).run()
    assert_clean(at)
    assert at.sidebar.selectbox(key="ds").value == "mnist"
    assert not [w.value for w in at.warning if "not available" in w.value]
    linked = run("data", {"ds": "mnist"})  # a link to the Data page: the sample too, said so
    assert linked.sidebar.selectbox(key="ds").value == "mnist_5000"
    assert any("using mnist_5000" in w.value for w in linked.warning)
