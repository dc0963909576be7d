"""Tables of the documentation generated from the code at build time (a Sphinx extension).

- _generated/claims_<paper>.rst: that paper's claims with the verdicts computed by
  metriclab.reproduce.verdicts from the committed tables (the same source as the README's claims
  table and the Reproduce page); _generated/claims_rule.rst: the rule.
- _generated/params_<method>.rst: each method's parameters from its spec (label, default, valid
  range, slider range, help): the declaration the estimator, the app and the docs share.
"""

from __future__ import annotations

import math
from pathlib import Path

GENERATED = Path(__file__).resolve().parent / "_generated"  # included, not documents


def _escape(text: str) -> str:
    return str(text).replace("\n", " ").replace("|", "\\|").replace("*", "\\*").strip() or "—"


def _list_table(header: list[str], rows: list[list[str]], widths: list[int]) -> str:
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        f"   :widths: {' '.join(str(w) for w in widths)}",
        "   :class: metriclab-table",
        "",
    ]
    for row in [header, *rows]:
        for index, cell in enumerate(row):
            lines.append(f"   {'* -' if index == 0 else '  -'} {_escape(cell) if cell else '—'}")
    return "\n".join(lines) + "\n"


def claims_tables() -> dict[str, str]:
    from metriclab.reproduce import verdicts

    results = verdicts.evaluate_all()
    out = {}
    for paper in verdicts.PAPERS:
        rows = [
            [
                f'{v.claim["where"]}: "{v.claim["quote"]}"',
                v.paper,
                v.ours,
                verdicts.verdict_cell(v).replace("**", ""),
                v.claim.get("why", ""),
            ]
            for v in results
            if v.claim["paper"] == paper
        ]
        out[f"claims_{paper}"] = _list_table(
            ["claim (paper's words)", "paper", "ours", "holds?", "why"], rows, [24, 14, 28, 8, 26]
        )
    out["claims_rule"] = (
        "\n\n".join(
            text.replace("**", "").replace("*", "").replace("|", "\\|")
            for text in (verdicts.RULE_TEXT, verdicts.READINGS_TEXT)
        )
        + "\n"
    )
    return out


def _range(p) -> str:
    if p.kind == "choice":
        return ", ".join(str(c) for c in p.choices)
    if p.kind == "bool":
        return "True / False"
    if p.low is None and p.high is None:
        return "any"
    low = "−∞" if p.low is None else f"{p.low:g}"
    high = "∞" if p.high is None else f"{p.high:g}"
    return f"{'(' if p.low_open else '['}{low}, {high}{')' if p.high_open else ']'}"


def _value(value) -> str:
    if value is None:
        return "None (automatic)"
    if isinstance(value, float) and math.isfinite(value):
        return f"{value:g}"
    return str(value)


def params_tables() -> dict[str, str]:
    from metriclab.methods import REGISTRY

    out = {}
    for key, spec in REGISTRY.items():
        rows = []
        for p in spec.params:
            slider = f"{p.ui_low:g} – {p.ui_high:g}" if p.slider else ""
            when = (
                f" (used when {p.active_when[0]} is {', '.join(map(str, p.active_when[1]))})"
                if p.active_when
                else ""
            )
            rows.append(
                [
                    f"``{p.name}`` ({p.label})",
                    _value(p.default),
                    _range(p) + (f"; slider {slider}" if p.slider else ""),
                    p.help + when,
                ]
            )
        if not rows:
            out[f"params_{key}"] = "This method has no parameters.\n"
            continue
        out[f"params_{key}"] = _list_table(
            ["parameter (slider label)", "default", "valid values", "meaning"],
            rows,
            [22, 12, 18, 48],
        )
    return out


def write_generated(app=None) -> None:
    GENERATED.mkdir(exist_ok=True)
    for name, text in {**claims_tables(), **params_tables()}.items():
        path = GENERATED / f"{name}.rst"
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def setup(app):
    app.connect("builder-inited", write_generated)
    return {"parallel_read_safe": True, "version": "1"}
