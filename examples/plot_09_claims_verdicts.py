"""
The papers' claims, by verdict
==============================

Every claim of the four papers has a verdict computed by one rule from the committed runs
(`metriclab.reproduce.verdicts`; the rule is on the Reproduction page). This counts them per
paper.
"""

import plotly.graph_objects as go

from metriclab.reproduce import verdicts

results = verdicts.evaluate_all()
papers = list(verdicts.PAPERS)
words = ["yes", "yes (tests)", "yes (bench)", "partly", "inconclusive", "no", "not run"]
colours = ["#2a9d4b", "#6cc08b", "#9ed8b0", "#e9b43c", "#7a8fd1", "#d1495b", "#9a9a9a"]
fig = go.Figure()
for word, colour in zip(words, colours, strict=True):
    counts = [sum(v.word == word and v.claim["paper"] == p for v in results) for p in papers]
    fig.add_bar(
        y=[verdicts.PAPERS[p] for p in papers],
        x=counts,
        name=word,
        orientation="h",
        marker_color=colour,
    )
fig.update_layout(barmode="stack", height=320)
fig.update_xaxes(title="claims")
fig.show()
