"""Tables of the documentation generated from the code at build time (a Sphinx extension).

- _generated/claims_<paper>.rst: that paper's claims with the verdicts computed by
  metriclab.reproduce.verdicts from the committed tables (the same source as the README's claims
  table and the Reproduce page); _generated/claims_rule.rst: the rule.
- _generated/params_<method>.rst: each method's parameters from its spec (label, default, valid
  range, slider range, help): the declaration the estimator, the app and the docs share.
- tables/<table>.rst (documents, generated; issue 38): each committed reproduction table
  (docs/reproduction/<table>.md and .csv) as a page of its own, and _generated/tables_toc.rst,
  their table of contents in the papers' order.

The claims tables are real tables (issue 38): the Markdown emphasis of the verdict texts becomes
reStructuredText emphasis (no literal `*symmetric*`), the verdict is a badge, and four columns
(the claim with the paper's number and its tables, ours, the verdict, why) span the page's width
(docs/source/_static/metriclab.css widens a page that holds one).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
GENERATED = HERE / "_generated"  # included, not documents
TABLE_PAGES = HERE / "tables"  # generated documents: one page per reproduced table
REPRODUCTION = HERE.parents[1] / "docs" / "reproduction"  # the committed tables


def _escape(text: str) -> str:
    return str(text).replace("\n", " ").replace("|", "\\|").replace("*", "\\*").strip() or "—"


def _list_table(
    header: list[str],
    rows: list[list[str]],
    widths: list[int],
    classes: str = "metriclab-table",
    raw: bool = False,
) -> str:
    """A list-table; `raw`: the cells are reStructuredText already (may hold several paragraphs,
    separated by blank lines), else plain text to escape."""
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        f"   :widths: {' '.join(str(w) for w in widths)}",
        f"   :class: {classes}",
        "",
    ]
    for number, row in enumerate([header, *rows]):
        for index, cell in enumerate(row):
            text = (cell if raw and number else _escape(cell)) if cell else "—"
            first, *rest = str(text).split("\n")
            lines.append(f"   {'* -' if index == 0 else '  -'} {first}")
            lines += [f"       {line}" if line else "" for line in rest]
    return "\n".join(lines) + "\n"


# ---- Markdown of the verdict texts and the committed tables, as reStructuredText ----------------

_EMPHASIS = re.compile(
    r"(\*\*[^*\n]+?\*\*|(?<![\w*])\*[^*\s](?:[^*\n]*?[^*\s])?\*(?![\w*])|``[^\n]+?``|`[^`\n]+`)"
)
_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")


def _rst_plain(text: str) -> str:
    """Plain text as reStructuredText: every markup character escaped."""
    return re.sub(r"([\\*_`|])", r"\\\1", text.replace("\n", " "))


_OPEN_AFTER = " \t-:/'\"<([{"  # what may stand before inline markup in reStructuredText
_CLOSE_BEFORE = " \t-.,:;!?\\/'\")]}>"  # what may follow it


def rst_inline(text: str, links: dict[str, str] | None = None) -> str:
    """One line of Markdown (emphasis, strong, code, links) as reStructuredText inline markup;
    a link to a committed table (`tdl-uci.md`) becomes a link to its page, others plain text."""
    text = str(text).replace("\\|", "|").replace("\n", " ")
    out = []
    pos = 0
    for match in re.finditer(f"{_LINK.pattern}|{_EMPHASIS.pattern}", text):
        out.append(_rst_plain(text[pos : match.start()]))
        token = match.group(0)
        if token.startswith("["):
            label, target = _LINK.fullmatch(token).groups()
            page = (links or {}).get(target)
            if not page:
                out.append(_rst_plain(label))
                pos = match.end()
                continue
            markup = f":doc:`{_rst_plain(label)} <{page}>`"
        elif token.startswith("**"):
            markup = f"**{_rst_plain(token[2:-2])}**"
        elif token.startswith("`"):
            markup = f"``{token.strip('`').strip()}``"
        else:
            markup = f"*{_rst_plain(token[1:-1])}*"
        before = text[match.start() - 1] if match.start() else " "
        after = text[match.end()] if match.end() < len(text) else " "
        # inline markup starts and ends at a word's edge: an escaped space where it touches one
        out.append(
            ("" if before in _OPEN_AFTER else "\\ ")
            + markup
            + ("" if after in _CLOSE_BEFORE else "\\ ")
        )
        pos = match.end()
    out.append(_rst_plain(text[pos:]))
    return "".join(out)


VERDICT_ROLES = (
    ("yes", "verdict-yes"),
    ("partly", "verdict-partly"),
    ("no", "verdict-no"),
    ("not run", "verdict-not-run"),
)


def _verdict_role(word: str) -> str:
    base = word.split(" (")[0]
    return dict(VERDICT_ROLES).get(base, "verdict-other")


def _roles() -> str:
    roles = [*dict(VERDICT_ROLES).values(), "verdict-other"]
    return "\n".join(
        f".. role:: {role}\n   :class: metriclab-verdict metriclab-{role}\n" for role in roles
    )


def _table_pages() -> dict[str, str]:
    """Link targets of the committed tables: `tdl-uci.md` -> `/tables/tdl-uci`."""
    return {f"{p.stem}.md": f"/tables/{p.stem}" for p in sorted(REPRODUCTION.glob("*.csv"))}


def _claim_cell(claim: dict, paper_text: str, links: dict[str, str]) -> str:
    tables = claim.get("tables") or ([claim["table"]] if claim.get("table") else [])
    quote = rst_inline(f'{claim["where"]}: "{claim["quote"]}"')
    parts = [quote, f"*Paper:* {rst_inline(paper_text)}"]
    shown = [
        f":doc:`{t} <{links[t + '.md']}>`" if t + ".md" in links else _rst_plain(t) for t in tables
    ]
    if shown:
        parts.append(f"*Tables:* {', '.join(shown)}")
    return "\n\n".join(parts)


def _ours_cell(ours: str) -> str:
    """Ours, one paragraph per reading of the paper (the texts are joined by ' — ')."""
    readings = re.split(r" — (?=\*[a-z_]+\* \()", str(ours))
    return "\n\n".join(rst_inline(r) for r in readings)


def _verdict_cell(v) -> str:
    word = f":{_verdict_role(v.word)}:`{_rst_plain(v.word)}`"
    others = [f"{r}: {w}" for r, w in list(v.readings.items())[1:]]
    return word + (f"\n\n({_rst_plain('; '.join(others))})" if others else "")


def claims_tables() -> dict[str, str]:
    from metriclab.reproduce import verdicts

    results = verdicts.evaluate_all()
    links = _table_pages()
    out = {}
    for paper in verdicts.PAPERS:
        rows = [
            [
                _claim_cell(v.claim, v.paper, links),
                _ours_cell(v.ours),
                _verdict_cell(v),
                rst_inline(v.claim.get("why", "")) or "—",
            ]
            for v in results
            if v.claim["paper"] == paper
        ]
        out[f"claims_{paper}"] = (
            _roles()
            + "\n"
            + _list_table(
                ["claim (paper's words), the paper's number", "ours", "holds?", "why"],
                rows,
                [30, 34, 9, 27],
                classes="metriclab-table metriclab-claims",
                raw=True,
            )
        )
    out["claims_rule"] = (
        "\n\n".join(
            rst_inline(paragraph)
            for text in (verdicts.RULE_TEXT, verdicts.READINGS_TEXT)
            for paragraph in re.split(r"\n\s*\n", text.strip())
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
            starts = "the default" if p.default == p.estimator_default else _value(p.default)
            rows.append(
                [
                    f"``{p.name}`` ({p.label})",
                    _value(p.estimator_default),
                    starts,
                    _range(p) + (f"; slider {slider}" if p.slider else ""),
                    p.help + when,
                ]
            )
        if not rows:
            out[f"params_{key}"] = "This method has no parameters.\n"
            continue
        out[f"params_{key}"] = _list_table(
            ["parameter (slider label)", "default", "the app starts at", "valid values", "meaning"],
            rows,
            [20, 11, 11, 16, 42],
        )
    return out


def _heading(text: str, mark: str) -> list[str]:
    title = rst_inline(text)
    return [title, mark * max(len(title), 3), ""]


def markdown_page(markdown: str, links: dict[str, str] | None = None) -> list[str]:
    """A committed table's Markdown (as metriclab.reproduce.markdown_report writes it: headings,
    bullets, paragraphs, one pipe table, a fenced block where a run failed) as reStructuredText."""
    out: list[str] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        if not line:
            i += 1
            continue
        level = len(line) - len(line.lstrip("#"))
        if 1 <= level <= 3 and line[level : level + 1] == " ":
            out += _heading(line[level + 1 :], "=-~"[level - 1])
            i += 1
        elif line.startswith("```"):
            block = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                block.append(lines[i])
                i += 1
            i += 1
            out += ["::", "", *[f"   {b}" for b in block], ""]
        elif line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = re.split(r"(?<!\\)\|", lines[i].strip()[1:-1])
                if not all(re.fullmatch(r"\s*:?-+:?\s*", c) for c in cells):
                    rows.append([c.strip() for c in cells])
                i += 1
            header, body = rows[0], rows[1:]
            cells = [[rst_inline(c, links) or "—" for c in row] for row in body]
            widths = [max(3, min(30, max(len(r[k]) for r in rows))) for k in range(len(header))]
            out += [
                _list_table(
                    [h.replace("\\|", "|") for h in header],
                    cells,
                    widths,
                    classes="metriclab-table metriclab-results",
                    raw=True,
                ),
                "",
            ]
        elif line.startswith("- "):
            while i < len(lines) and lines[i].startswith("- "):
                out.append(f"- {rst_inline(lines[i][2:], links)}")
                i += 1
            out.append("")
        else:
            paragraph = []
            while i < len(lines) and lines[i].strip() and not lines[i].startswith(("#", "|", "- ")):
                paragraph.append(lines[i].strip())
                i += 1
            out += [rst_inline(" ".join(paragraph), links), ""]
    return out


def table_pages() -> dict[str, str]:
    """Each committed table as a page: its report (title, run, protocol, the table, notes) with
    downloads of the CSV, the Markdown and the per-split values."""
    links = _table_pages()
    pages = {}
    for csv in sorted(REPRODUCTION.glob("*.csv")):
        name = csv.stem
        md = REPRODUCTION / f"{name}.md"
        body = markdown_page(md.read_text(encoding="utf-8"), links) if md.exists() else []
        title, rest = (body[:3], body[3:]) if body else (_heading(name, "="), [])
        files = [f":download:`CSV <../../reproduction/{name}.csv>`"]
        if md.exists():
            files.append(f":download:`Markdown <../../reproduction/{name}.md>`")
        if (REPRODUCTION / "splits" / f"{name}.csv.gz").exists():
            files.append(f":download:`per-split values <../../reproduction/splits/{name}.csv.gz>`")
        lead = (
            f"The committed full run ``docs/reproduction/{name}`` of the repository, rerun by "
            f"``metriclab reproduce {name}``; the claims it measures are on :doc:`/reproduction`. "
            f"Download: {', '.join(files)}."
        )
        pages[name] = "\n".join([f".. _table-{name}:", "", *title, lead, "", *rest]) + "\n"
    return pages


def tables_toc(names: list[str]) -> str:
    """The table pages in the papers' order (the order `metriclab reproduce all` runs them)."""
    try:
        from metriclab.reproduce import experiments

        order = [n for n in experiments() if n in names]
    except ImportError:
        order = []
    order += [n for n in names if n not in order]
    return ".. toctree::\n   :maxdepth: 1\n\n" + "".join(f"   tables/{n}\n" for n in order)


def _write(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def write_generated(app=None) -> None:
    GENERATED.mkdir(exist_ok=True)
    for name, text in {**claims_tables(), **params_tables()}.items():
        _write(GENERATED / f"{name}.rst", text)
    TABLE_PAGES.mkdir(exist_ok=True)
    pages = table_pages()
    for stale in TABLE_PAGES.glob("*.rst"):
        if stale.stem not in pages:
            stale.unlink()
    for name, text in pages.items():
        _write(TABLE_PAGES / f"{name}.rst", text)
    _write(GENERATED / "tables_toc.rst", tables_toc(list(pages)))


def setup(app):
    app.connect("builder-inited", write_generated)
    return {"parallel_read_safe": True, "version": "1"}
