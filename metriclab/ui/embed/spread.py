"""The Embed page's spread over split seeds: the method against each of its references — the
comparable baseline and the Euclidean 1-NN in the input space — on the same ten splits, with
wins, ties and losses and a paired test deciding the sentence."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from metriclab.ui.embed.context import EmbedPage
from metriclab.ui.shared import compute, memo
from metriclab.ui.shared.fit_request import FitRequest

SEEDS = range(10)


def seed_accuracies(request: FitRequest, seeds=SEEDS) -> list[float]:
    """The accuracy of `request` on each split seed of `seeds` (the other settings unchanged)."""
    return [
        memo.fit(replace(request, split=replace(request.split, seed=s))).accuracy for s in seeds
    ]


def spread_lines(name: str, mine: list[float], references: dict[str, list[float]]) -> list[str]:
    """One sentence per reference: wins/ties/losses, means ± std and the paired test's verdict."""
    lines = []
    for label, theirs in references.items():
        spread = compute.seed_spread(mine, theirs)
        lines.append(
            f"against **{label}** — wins/ties/losses {spread.wins}/{spread.ties}/{spread.losses}: "
            f"{name} {spread.mean:.3f} ± {spread.std:.3f}, {label} {spread.ref_mean:.3f} ± "
            f"{spread.ref_std:.3f}. {spread.verdict(name, label)}"
        )
    return lines


def show_spread(page: EmbedPage, request: FitRequest, references: list) -> None:
    """Accuracy over 10 split seeds, the method against every reference [(label, request)]."""
    with st.spinner(f"fitting {len(SEEDS) * (1 + len(references))} splits"):
        mine = seed_accuracies(request)
        theirs = {label: seed_accuracies(ref) for label, ref in references}
    lines = spread_lines(page.spec.label, mine, theirs)
    st.markdown("**Over split seeds 0–9**\n\n" + "\n".join(f"- {line}" for line in lines))
