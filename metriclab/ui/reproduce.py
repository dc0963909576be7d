"""The Reproduce page: every claim of the four papers with its verdict (the claims view, opened
first), and each committed table with the paper's numbers beside ours (the tables view).

The verdicts come from metriclab.reproduce.verdicts: the same computation as the claims table of
docs/reproduction/README.md and the documentation, so the badge, the README and the docs agree.
"""

from __future__ import annotations

import html

import pandas as pd
import streamlit as st

from metriclab import plots
from metriclab.ui.shared import memo
from metriclab.ui.shared.charts import draw_chart
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.runs import fast_reproduction
from metriclab.ui.shared.state import Rule, publish, seed_from_url, seed_widget
from metriclab.ui.shared.widgets import display_table

VIEWS = {"claims": "Claims and verdicts", "tables": "Tables"}
BADGE = {  # verdict: (background, text colour)
    "yes": ("#1a7f37", "#ffffff"),
    "yes (tests)": ("#2da44e", "#ffffff"),
    "yes (bench)": ("#2da44e", "#ffffff"),
    "partly": ("#d4a72c", "#1f2328"),
    "inconclusive": ("#5a6fb5", "#ffffff"),  # neither shown to hold nor shown not to (issue 39)
    "no": ("#cf222e", "#ffffff"),
    "not run": ("#8c959f", "#ffffff"),
    "table stale": ("#ffffff", "#cf222e"),  # the committed table cannot answer it: regenerate
}
# the paper's numbers with the digits it printed, ours to four significant digits (the cards'
# precision: 95.49 ± 1.377); the CSV behind the table keeps every digit
TABLE_FORMATS = {
    "paper": "{:g}".format,
    "ours_mean": "{:#.4g}".format,
    "ours_std": "{:#.4g}".format,
}
MANY_ROWS = 20  # more rows than this of one metric: lines over the swept parameter, or a heat map


def badge(word: str) -> str:
    background, colour = BADGE.get(word, ("#8c959f", "#ffffff"))
    return (
        f"<span style='background:{background}; color:{colour}; padding:0.15rem 0.55rem; "
        f"border-radius:0.75rem; font-weight:600; white-space:nowrap'>{html.escape(word)}</span>"
    )


def parts_markdown(parts: list[tuple[str, str, str]]) -> str:
    """A claim's parts under one reading, one line each: what was compared, ours with the test,
    and whether it holds."""
    if len(parts) == 1:
        _, text, state = parts[0]
        return f"{text} (**{state}**)"
    return "\n".join(f"- {label}: {text} (**{state}**)" for label, text, state in parts)


def ours_markdown(claim: dict) -> str:
    """Our side of a claim's card: the headline reading's parts one per line (the verdict's badge
    is theirs), or the claim's own text where there is nothing computed."""
    if not claim["parts"]:
        return f"**Ours:** {claim['ours']}"
    reading = f" (*{claim['headline']}* reading)" if claim["headline"] else ""
    parts = parts_markdown(claim["parts"])
    note = f"\n\n{claim['ours_note']}" if claim["ours_note"] else ""
    return f"**Ours**{reading}:" + ("\n\n" if "\n" in parts else " ") + parts + note


def other_readings_markdown(readings: list) -> str:
    """Each other reading of a claim with its verdict and its parts."""
    return "\n\n".join(
        f"*{name}* (**{word}**):" + ("\n\n" if len(parts) > 1 else " ") + parts_markdown(parts)
        for name, word, parts in readings
    )


def _open_table(name: str) -> None:
    st.session_state["show"] = "tables"
    st.session_state["exp"] = name


def claims_view() -> None:
    results = guarded(memo.claims, context="the claims table")
    if results is None:
        return
    from metriclab.reproduce.verdicts import PAPERS, RULE_TEXT

    papers = {"all": "all four papers", **PAPERS}
    seed_widget("paper", Rule("all", list(papers), label="Paper", shown=papers.get))
    paper = st.radio("Paper", list(papers), key="paper", format_func=papers.get, horizontal=True)
    counts: dict[str, int] = {}
    for claim in results:
        counts[claim["word"]] = counts.get(claim["word"], 0) + 1
    st.markdown(
        " ".join(f"{badge(word)} {counts[word]}" for word in BADGE if word in counts),
        unsafe_allow_html=True,
    )
    with st.expander("How a verdict is decided (one rule for every claim)"):
        st.markdown(RULE_TEXT)
    for index, claim in enumerate(results):
        if paper != "all" and claim["paper"] != paper:
            continue
        with st.container(border=True):
            head, verdict = st.columns([6, 1])
            head.markdown(f"**{PAPERS[claim['paper']]}**, {claim['where']}: *“{claim['quote']}”*")
            verdict.markdown(badge(claim["word"]), unsafe_allow_html=True)
            left, right = st.columns(2)
            left.markdown(f"**Paper:** {claim['paper_text']}")
            right.markdown(ours_markdown(claim))
            if claim["other_readings"]:
                verdicts = "; ".join(f"{name}: {word}" for name, word, _ in claim["other_readings"])
                with st.expander(f"Other readings: {verdicts}"):
                    st.markdown(other_readings_markdown(claim["other_readings"]))
            if claim["why"]:
                st.markdown(f"**Why:** {claim['why']}")
            for name in claim["tables"]:
                st.button(
                    f"Table: {name}",
                    key=f"open_{index}_{name}",
                    on_click=_open_table,
                    args=(name,),
                    icon=":material/table_view:",
                )


def _numeric(table: pd.DataFrame) -> pd.DataFrame:
    numeric = table.copy()
    for col in ("paper", "ours_mean", "ours_std"):
        if col in numeric:
            numeric[col] = pd.to_numeric(numeric[col], errors="coerce")
    return numeric


def table_chart(table: pd.DataFrame, key: str) -> None:
    """The table's chart: lines over the swept parameter where the settings sweep one (tdl-moons),
    a heat map for many rows, else the paper's bars beside ours."""
    numeric = _numeric(table)
    if not {"setting", "method", "paper", "ours_mean", "ours_std"} <= set(numeric.columns):
        return
    shown = numeric
    if "metric" in numeric.columns and numeric["metric"].nunique() > 1:
        metric = st.selectbox(
            "Metric in the chart", list(numeric["metric"].unique()), key=f"metric_{key}"
        )
        shown = numeric[numeric["metric"] == metric]
    if shown["ours_mean"].notna().any():  # rows the paper quotes but we do not run: table only
        shown = shown[shown["ours_mean"].notna()]
    figure = plots.sweep_lines(shown) if len(shown) > MANY_ROWS else None
    if figure is None and len(shown) > MANY_ROWS:
        figure = plots.results_heatmap(shown, title="ours (mean over the splits)")
    if figure is None:
        figure = plots.paper_vs_ours(shown)
    draw_chart(st, figure, key=f"chart_{key}")


def tables_view() -> None:
    found = guarded(memo.experiments, context="experiments")
    if not found:
        return
    names = list(found)
    first = next((n for n in names if memo.stored_reproduction(n)[0] is not None), names[0])
    seed_from_url("exp", first, options=names, label="Experiment")
    if st.session_state["exp"] not in names:
        st.session_state["exp"] = first
    name = st.selectbox(
        "Experiment", names, key="exp", format_func=lambda n: f"{n} — {found[n].title}"
    )
    exp = found[name]
    st.caption(f"Paper: {exp.paper}")
    if exp.description:
        st.markdown(exp.description)
    tab_stored, tab_live = st.tabs(["Full run (stored)", "Fast run (live)"])
    with tab_stored:
        table, notes = memo.stored_reproduction(name)
        if table is None:
            st.info(
                f"No stored full run yet (docs/reproduction/{name}.csv); "
                f"run `python -m metriclab reproduce {name}` or use the fast run."
            )
        else:
            table_chart(table, "stored")
            st.dataframe(display_table(_numeric(table), TABLE_FORMATS), hide_index=True)
        if notes:
            with st.expander("Notes on this run", expanded=False):
                st.markdown(notes)
    with tab_live:
        if st.button("Run fast version", type="primary", key="run_fast"):
            bar = st.progress(0.0, text="starting")

            def progress(done, total, message):
                bar.progress(min(1.0, done / max(total, 1)), text=f"{done}/{total} · {message}")

            live = guarded(fast_reproduction, name, 0, progress=progress, context=name)
            bar.empty()
            if live is not None:
                st.session_state["_fast"] = (name, live)
        stored = st.session_state.get("_fast")
        if stored and stored[0] == name:
            table_chart(stored[1], "live")
            st.dataframe(display_table(_numeric(stored[1]), TABLE_FORMATS), hide_index=True)


def render() -> None:
    shown = "tables" if "exp" in st.query_params and "show" not in st.query_params else "claims"
    seed_widget("show", Rule(shown, list(VIEWS), label="Show", shown=VIEWS.get))
    view = st.segmented_control("Show", list(VIEWS), key="show", format_func=VIEWS.get)
    view = view or "claims"
    if view == "claims":
        claims_view()
        publish({"show": "claims", "paper": st.session_state.get("paper", "all")}, prune=("exp",))
    else:
        tables_view()
        publish({"show": "tables", "exp": st.session_state.get("exp")}, prune=("paper",))
