"""The Embed page's spread over split seeds: the method against its comparable reference on the
same ten splits, with wins, ties and losses."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from metriclab.ui.embed.context import EmbedPage
from metriclab.ui.shared import cache, compute
from metriclab.ui.shared.fit_request import FitRequest

SEEDS = range(10)


def seed_accuracies(request: FitRequest, seeds=SEEDS) -> list[float]:
    """The accuracy of `request` on each split seed of `seeds` (the other settings unchanged)."""
    return [
        cache.fit(replace(request, split=replace(request.split, seed=s))).accuracy for s in seeds
    ]


def show_spread(page: EmbedPage, request: FitRequest, reference: tuple[str, FitRequest]) -> None:
    """Accuracy over 10 split seeds, the method against its comparable reference."""
    label, ref = reference
    with st.spinner("fitting 10 splits"):
        mine, theirs = seed_accuracies(request), seed_accuracies(ref)
    spread = compute.seed_spread(mine, theirs)
    st.markdown(
        f"**Over split seeds 0–9** against {label} — wins/ties/losses {spread.wins}/{spread.ties}/"
        f"{spread.losses}: {page.spec.label} {spread.mean:.3f} ± {spread.std:.3f}, {label} "
        f"{spread.ref_mean:.3f} ± {spread.ref_std:.3f}. {spread.verdict(page.spec.label, label)}"
    )
