"""Every claim's verdict by one rule, computed from the committed tables (issue 32).

The claims of the four papers are listed once, in `claims.toml` beside this module: the paper's
words, where they stand, and which rows of which committed table (docs/reproduction/<table>.csv,
with the per-split values of splits/<table>.csv.gz) measure them. This module reads those tables and
decides each verdict by the rule below; the claims table of docs/reproduction/README.md, the
Reproduce page's badges and the documentation are all rendered from `evaluate_all()`, and a test
fails when the README's table is not what the rule gives.

THE RULE (written once; RULE_TEXT is what the README shows above the table):

- A claim has one or more named parts. It holds ("yes") when every part holds, does not ("no")
  when none does, and holds "partly" when some do, each part named in the cell.
- direction ("A beats B"): our two methods are compared on the same splits. The part holds when
  the mean paired difference has the claimed sign and the two-sided Wilcoxon signed-rank test over
  the splits rejects "no difference" at α = 0.05. On one split (no spread to test against) the
  sign decides, and the cell says "one split".
- level ("the paper's number"): holds when |ours − paper| is at most the paper's split-to-split
  standard deviation, or ours where the paper gives none.
- threshold ("fewer than 20 iterations", "separates"): holds when our mean is on the claimed side
  of the bound.
- count ("wins on 26 of 27 data sets"): each data set is a win, a draw or a loss by the paired
  Wilcoxon test as above; the counts at the paper's precision (means rounded to its decimals) are
  shown beside. The claim holds when we have at least the paper's wins and at most its losses.
- best ("cross validation obtains the best performance"): the number of data sets on which the
  named method has the best mean at the paper's precision (ties count), ours against the paper's
  own table; holds when ours is at least the paper's.
- across ("A is slightly better than B" over many data sets): the mean over data sets of the
  difference of means, tested by the Wilcoxon test over the data sets; as for direction.
- Where the paper leaves a choice open that changes the answer (a "reading"), the verdict is the
  one under the reading fixed before looking at the results; the other readings' verdicts are
  listed beside it.
- Rows with no number to compute from (a theorem checked by the test suite, a method we do not
  run) carry a stated verdict: "yes (tests)" or "not run", with the reason.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import binomtest, wilcoxon

from metriclab import resources

ALPHA = 0.05
CLAIMS_FILE = Path(__file__).with_name("claims.toml")
DEFAULT_TABLES = resources.reproduction()  # docs/reproduction (a checkout) or the wheel's copy
VERDICTS = ("yes", "partly", "no", "yes (tests)", "yes (bench)", "not run")
PAPERS = {
    "tdl": "Li, Yang & Wang (2007)",
    "zhang": "Zhang (2003)",
    "kpca": "Chatpatanasiri et al. (2009)",
    "mody": "Mody (2009)",
}
# How a method is named under a reading of the TDL paper (reproduce.tdl.method_name).
READING_SUFFIX = {"unnormalized": "", "symmetric": " [symmetric]", "random_walk": " [random_walk]"}

RULE_TEXT = """\
**The verdict rule** (computed by `metriclab.reproduce.verdicts` from the committed tables; a test
fails when this table disagrees with it). A claim has one or more named parts: "yes" when every
part holds, "no" when none does, "partly" when some do (each named in the cell).
*Direction* (A beats B): the mean paired difference over our splits has the claimed sign and the
two-sided Wilcoxon signed-rank test over the splits rejects "no difference" at α = 0.05; on a
single split the test is McNemar's exact test over the test images. *Same* (no effect): the
paired test does not reject "no difference". *Level* (the paper's number): |ours − paper| is at
most the paper's split-to-split standard deviation (ours where the paper gives none).
*Threshold*: our mean is on the claimed side of the bound. *Count* (wins / draws / losses over
data sets): each data set is a win, draw or loss by the paired Wilcoxon test; the counts at the
paper's two decimals are shown beside; the claim holds with at least the paper's wins and at most
its losses. *Best*: the data sets on which the method has the best mean at the paper's precision
(ties count), ours against the paper's own table. *Across*: the mean over data sets of the
difference, tested by Wilcoxon over the data sets. Where the paper leaves a choice open (a
*reading*), the verdict is the one under the reading fixed before looking at any result, and the
other readings' verdicts are listed. Rows with nothing to compute carry "yes (tests)" (a theorem
checked by the test suite), "yes (bench)" (a speed claim measured in bench/) or "not run", with
the reason."""


# ---- the committed tables ----------------------------------------------------------------------


@dataclass
class Table:
    """One committed table: its rows and, where written, its per-split values."""

    name: str
    frame: pd.DataFrame
    splits: pd.DataFrame | None

    def row(self, setting: str, method: str) -> pd.Series:
        hit = self.frame[(self.frame.setting == setting) & (self.frame.method == method)]
        if hit.empty:
            raise KeyError(f"{self.name}: no row ({setting!r}, {method!r})")
        return hit.iloc[0]

    def values(self, setting: str, method: str) -> np.ndarray | None:
        """Per-split values in split order, or None where the table has none."""
        if self.splits is None:
            return None
        s = self.splits
        hit = s[(s.setting == setting) & (s.method == method)].sort_values("split")
        return hit["value"].to_numpy(dtype=float) if len(hit) else None

    def settings_with(self, *methods: str) -> list[str]:
        """Settings (in table order) that have a row for every one of `methods`."""
        f = self.frame
        return [
            s
            for s in dict.fromkeys(f.setting)
            if all(((f.setting == s) & (f.method == m)).any() for m in methods)
        ]


class Tables:
    """The committed tables of one directory, read once each."""

    def __init__(self, directory: str | Path = DEFAULT_TABLES):
        self.directory = Path(directory)
        self._read: dict[str, Table] = {}

    def __getitem__(self, name: str) -> Table:
        if name not in self._read:
            csv = self.directory / f"{name}.csv"
            if not csv.exists():
                raise KeyError(f"no committed table {csv}")
            splits = self.directory / "splits" / f"{name}.csv.gz"
            self._read[name] = Table(
                name, pd.read_csv(csv), pd.read_csv(splits) if splits.exists() else None
            )
        return self._read[name]


# ---- statistics --------------------------------------------------------------------------------


def paired_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p of a − b over splits (zero differences dropped, as in
    Wilcoxon's original test; 1.0 when every difference is zero)."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if d.size < 2 or np.allclose(d, 0.0):
        return 1.0
    return float(wilcoxon(d).pvalue)


def mcnemar_p(a: np.ndarray, b: np.ndarray) -> float:
    """Exact McNemar p for two classifiers' per-image errors on one test set: the images that
    exactly one of them gets wrong, split by which one (a binomial test at 1/2)."""
    a, b = np.asarray(a) > 0, np.asarray(b) > 0
    only_a, only_b = int(np.sum(a & ~b)), int(np.sum(b & ~a))
    if only_a + only_b == 0:
        return 1.0
    return float(binomtest(only_a, only_a + only_b, 0.5).pvalue)


def outcome(a, b, lower_is_better: bool = False, per_image: bool = False):
    """(+1 win / 0 draw / −1 loss of a against b, mean difference a − b, p) by the paired test:
    Wilcoxon over splits, or McNemar over the images of one test set (`per_image`); a single
    value each is decided by its sign (p NaN)."""
    a, b = np.atleast_1d(np.asarray(a, dtype=float)), np.atleast_1d(np.asarray(b, dtype=float))
    d = float(np.mean(a - b))
    sign = -1.0 if lower_is_better else 1.0
    if a.size == 1:
        return (int(np.sign(sign * d)), d, math.nan)
    p = mcnemar_p(a, b) if per_image else paired_p(a, b)
    return (int(np.sign(sign * d)) if p < ALPHA else 0, d, p)


def _num(value: float, decimals: int | None = None) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    if decimals is None:
        decimals = 3 if abs(value) < 1 else (2 if abs(value) < 100 else 1)
    return f"{value:.{decimals}f}"


def _p(p: float) -> str:
    if not math.isfinite(p):
        return "one split"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}" if p < 0.1 else f"p = {p:.2f}"


def _paper_decimals(values) -> int:
    """The paper's precision: the most decimals among its numbers (at most 3)."""
    best = 0
    for v in values:
        if v is None or not math.isfinite(v):
            continue
        text = f"{v:.3f}".rstrip("0").rstrip(".")
        best = max(best, len(text.split(".")[1]) if "." in text else 0)
    return best


# ---- parts -------------------------------------------------------------------------------------


@dataclass
class Part:
    label: str
    holds: bool
    text: str  # ours, with the test


@dataclass
class Verdict:
    claim: dict
    word: str
    ours: str
    paper: str
    parts: list[Part] = field(default_factory=list)
    readings: dict[str, str] = field(default_factory=dict)  # reading -> its verdict word

    @property
    def id(self) -> str:
        return self.claim["id"]


def _series(table: Table, setting: str, method: str):
    """(row, values, per_image): the per-split values, or for a one-split row the per-image errors
    (the paired unit is then the test image)."""
    row = table.row(setting, method)
    values = table.values(setting, method)
    if values is None:
        if int(row.n_splits) > 1:
            raise ValueError(
                f"{table.name}: ({setting!r}, {method!r}) has {int(row.n_splits)} splits but no "
                "per-split values (splits/<table>.csv.gz): regenerate the table"
            )
        values = np.array([float(row.ours_mean)])
    return row, values, int(row.n_splits) == 1 and values.size > 1


def direction_part(table: Table, spec: dict, lower_is_better: bool, same: bool = False) -> Part:
    """A beats B (or, `same`, the paired test finds no difference between them)."""
    setting, better, worse = spec["setting"], spec["better"], spec["worse"]
    _, a, per_image = _series(table, setting, better)
    _, b, _ = _series(table, spec.get("setting_worse", setting), worse)
    if a.size != b.size:
        raise ValueError(f"{table.name}: {better} and {worse} have different split counts")
    result, d, p = outcome(a, b, lower_is_better, per_image)
    label = spec.get("label") or setting
    if per_image:
        over = f", McNemar over {a.size} test images"
    else:
        over = f", {a.size} splits" if a.size > 1 else ""
    text = (
        f"{spec.get('short_better', better)} {_num(a.mean())} vs {spec.get('short_worse', worse)} "
        f"{_num(b.mean())} ({'+' if d > 0 else ''}{_num(d)}, {_p(p)}{over})"
    )
    return Part(label, result == 0 if same else result == 1, text)


def level_part(table: Table, spec: dict) -> Part:
    row = table.row(spec["setting"], spec["method"])
    paper, ours = float(row.paper), float(row.ours_mean)
    paper_std = spec.get("paper_std")
    if paper_std is None and "paper_std" in row.index and math.isfinite(float(row.paper_std)):
        paper_std = float(row.paper_std)
    tolerance, whose = (
        (float(paper_std), "the paper's std")
        if paper_std is not None
        else (float(row.ours_std), "our std")
    )
    gap = ours - paper
    holds = abs(gap) <= tolerance + 1e-12
    label = spec.get("label") or f"{spec['setting']}, {spec['method']}"
    std = float(row.ours_std)
    shown = f"{_num(ours)} ± {_num(std)}" if math.isfinite(std) else _num(ours)
    text = (
        f"{shown} vs {_num(paper)} ({'+' if gap > 0 else ''}{_num(gap)}; "
        f"{abs(gap) / tolerance:.1f} × {whose})"
        if tolerance > 0
        else f"{shown} vs {_num(paper)}"
    )
    return Part(label, holds, text)


SHOWN_OP = {"<": "<", "<=": "≤", ">": ">", ">=": "≥"}


def threshold_part(table: Table, spec: dict) -> Part:
    """Our mean (or, `spread`, our split-to-split std) on the claimed side of the bound."""
    row = table.row(spec["setting"], spec["method"])
    ours = float(row.ours_std if spec.get("spread") else row.ours_mean)
    bound, op = float(spec["bound"]), spec["op"]
    holds = {"<": ours < bound, "<=": ours <= bound, ">": ours > bound, ">=": ours >= bound}[op]
    label = spec.get("label") or f"{spec['setting']}, {spec['method']}"
    values = table.values(spec["setting"], spec["method"])
    if spec.get("spread"):
        return Part(label, bool(holds), f"std {_num(ours)} (mean {_num(float(row.ours_mean))})")
    spread = (
        f", splits {_num(values.min())}–{_num(values.max())}"
        if values is not None and values.size > 1 and int(row.n_splits) > 1
        else ""
    )
    return Part(label, bool(holds), f"{_num(ours)}{spread} (claimed {SHOWN_OP[op]} {_num(bound)})")


def count_part(tables: Tables, claim: dict) -> Part:
    wins = draws = losses = 0
    rounded = [0, 0, 0]
    pieces = []
    lower = bool(claim.get("lower_is_better", False))
    for pair in claim["pairs"]:
        table = tables[pair["table"]]
        w = d = l_ = 0
        for setting in pair.get("settings") or table.settings_with(pair["better"], pair["worse"]):
            _, a, per_image = _series(table, setting, pair["better"])
            _, b, _ = _series(table, setting, pair["worse"])
            result, _, _ = outcome(a, b, lower, per_image)
            w, d, l_ = w + (result == 1), d + (result == 0), l_ + (result == -1)
            pa, pb = (
                table.row(setting, pair["better"]).paper,
                table.row(setting, pair["worse"]).paper,
            )
            decimals = _paper_decimals([float(pa), float(pb)]) or 2
            ra, rb = round(float(a.mean()), decimals), round(float(b.mean()), decimals)
            rounded[0 if ra > rb else (1 if ra == rb else 2)] += 1
        wins, draws, losses = wins + w, draws + d, losses + l_
        pieces.append(f"{pair.get('name', pair['better'])} {w}/{d}/{l_}")
    claimed = claim["claimed"]
    holds = wins >= claimed[0] and losses <= claimed[2]
    text = (
        f"{wins} / {draws} / {losses} by the paired test ({', '.join(pieces)}); "
        f"{rounded[0]} / {rounded[1]} / {rounded[2]} at the paper's precision"
    )
    return Part(claim.get("label", "wins / draws / losses"), holds, text)


def best_part(tables: Tables, claim: dict) -> Part:
    ours_best = paper_best = total = 0
    pieces = []
    for group in claim["groups"]:
        table = tables[group["table"]]
        candidates = group["methods"]
        o = p = 0
        for setting in table.settings_with(*candidates):
            rows = [table.row(setting, m) for m in candidates]
            decimals = _paper_decimals([float(r.paper) for r in rows]) or 2
            ours = [round(float(r.ours_mean), decimals) for r in rows]
            paper = [float(r.paper) for r in rows]
            o += ours[0] >= max(ours)
            p += paper[0] >= max(paper)
            total += 1
        ours_best, paper_best = ours_best + o, paper_best + p
        pieces.append(f"{candidates[0]} {o} (paper {p})")
    holds = ours_best >= paper_best
    text = f"best on {ours_best} of {total} (paper's table: {paper_best}): {', '.join(pieces)}"
    return Part(claim.get("label", "best"), holds, text)


def across_part(tables: Tables, claim: dict) -> Part:
    diffs = []
    for pair in claim["pairs"]:
        table = tables[pair["table"]]
        for setting in table.settings_with(pair["better"], pair["worse"]):
            a = float(table.row(setting, pair["better"]).ours_mean)
            b = float(table.row(setting, pair["worse"]).ours_mean)
            diffs.append(a - b)
    diffs = np.array(diffs)
    result, d, p = outcome(diffs, np.zeros_like(diffs))
    text = f"mean difference {'+' if d > 0 else ''}{_num(d)} over {diffs.size} data sets ({_p(p)})"
    return Part(claim.get("label", "across data sets"), result == 1, text)


# ---- claims ------------------------------------------------------------------------------------


def _with_reading(spec: dict, reading: str | None) -> dict:
    if reading is None:
        return spec
    suffix = READING_SUFFIX[reading]
    return {k: (v.replace("{r}", suffix) if isinstance(v, str) else v) for k, v in spec.items()}


def _parts(claim: dict, tables: Tables, reading: str | None) -> list[Part]:
    rule = claim["rule"]
    lower = bool(claim.get("lower_is_better", False))
    if rule in ("direction", "same", "level", "threshold"):
        out = []
        for spec in claim["parts"]:
            spec = _with_reading(spec, reading)
            table = tables[spec.get("table", claim.get("table"))]
            if rule in ("direction", "same"):
                out.append(direction_part(table, spec, lower, same=rule == "same"))
            elif rule == "level":
                out.append(level_part(table, spec))
            else:
                out.append(threshold_part(table, spec))
        return out
    claim = {
        **claim,
        **{
            key: [_with_reading(item, reading) for item in claim[key]]
            for key in ("pairs", "groups")
            if key in claim
        },
    }
    if rule == "count":
        return [count_part(tables, claim)]
    if rule == "best":
        return [best_part(tables, claim)]
    if rule == "across":
        return [across_part(tables, claim)]
    raise ValueError(f"claim {claim['id']}: unknown rule {rule!r}")


def combine(parts: list[Part]) -> str:
    held = sum(p.holds for p in parts)
    return "yes" if held == len(parts) else ("no" if held == 0 else "partly")


MANY_PARTS = 5  # past this many parts the cell lists the ones that do not hold


def _ours_text(parts: list[Part]) -> str:
    if len(parts) == 1:
        return parts[0].text
    if len(parts) >= MANY_PARTS:
        failing = [p for p in parts if not p.holds]
        head = f"{len(parts) - len(failing)} of {len(parts)} hold"
        return head + (
            "; not: " + "; ".join(f"{p.label} {p.text}" for p in failing) if failing else ""
        )
    return "; ".join(f"{p.label}: {p.text} ({'holds' if p.holds else 'does not'})" for p in parts)


def evaluate(claim: dict, tables: Tables) -> Verdict:
    """The verdict of one claim by the rule (stated verdicts for rows with nothing to compute)."""
    if claim["rule"] == "stated":
        if claim["verdict"] not in VERDICTS:
            raise ValueError(f"claim {claim['id']}: verdict must be one of {VERDICTS}")
        return Verdict(
            claim, claim["verdict"], claim.get("ours", "—"), claim.get("paper_text", "—")
        )
    readings = claim.get("readings") or [None]
    by_reading, texts, first_parts = {}, [], None
    for reading in readings:
        parts = _parts(claim, tables, reading)
        word = combine(parts)
        if first_parts is None:
            first_parts = parts
        if reading is not None:
            by_reading[reading] = word
            role = "fixed before looking" if reading == readings[0] else "chosen later"
            texts.append(f"*{reading}* ({role}): {_ours_text(parts)}")
        else:
            texts.append(_ours_text(parts))
    word = combine(first_parts)
    ours = " — ".join(texts) if readings != [None] else texts[0]
    if claim.get("ours_note"):
        ours = f"{ours}; {claim['ours_note']}"
    return Verdict(claim, word, ours, claim.get("paper_text", "—"), first_parts, by_reading)


@lru_cache(maxsize=1)
def claims() -> tuple[dict, ...]:
    """The claims of claims.toml, in order."""
    with CLAIMS_FILE.open("rb") as fh:
        data = tomllib.load(fh)
    out = tuple(data["claim"])
    ids = [c["id"] for c in out]
    if len(set(ids)) != len(ids):
        raise ValueError("claims.toml: claim ids must be unique")
    return out


STALE = "table stale"


def evaluate_all(directory: str | Path = DEFAULT_TABLES, strict: bool = True) -> list[Verdict]:
    """Compute the verdict of every claim of the four papers from the reproduction tables.

    What ``metriclab claims`` prints: each claim of ``claims.toml`` is checked against the
    tables by one written rule (paired tests over splits, levels within the paper's spread).

    Parameters
    ----------
    directory : str or pathlib.Path, default=the committed tables
        The folder of the tables (``<name>.csv`` and ``splits/``), e.g. the output of
        :func:`metriclab.reproduce.reproduce`.
    strict : bool, default=True
        Raise when a table cannot answer a claim (a row or the per-split values missing);
        False (the app): such a claim gets the verdict "table stale" with the reason.

    Returns
    -------
    list of Verdict
        Per claim: ``claim`` (the paper's words and where), ``word`` (the verdict: "yes",
        "partly", "no", ...), ``paper`` and ``ours`` (the numbers compared).

    See Also
    --------
    metriclab.reproduce.reproduce : Write tables to check.

    Examples
    --------
    >>> from metriclab.reproduce import verdicts
    >>> results = verdicts.evaluate_all()
    >>> len(results) > 10
    True
    >>> sorted({v.claim["paper"] for v in results}) == sorted(verdicts.PAPERS)
    True
    """
    tables = Tables(directory)
    out = []
    for claim in claims():
        try:
            out.append(evaluate(claim, tables))
        except (KeyError, ValueError, FileNotFoundError) as exc:
            if strict:
                raise
            reason = str(exc.args[0]) if exc.args else str(exc)
            out.append(
                Verdict(claim, STALE, f"cannot be computed: {reason}", claim.get("paper_text", "—"))
            )
    return out


# ---- rendering ---------------------------------------------------------------------------------

BEGIN, END = (
    "<!-- claims table: generated by `python -m metriclab claims --write` -->",
    "<!-- end of claims table -->",
)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ").strip()


def verdict_cell(v: Verdict) -> str:
    word = f"**{v.word}**"
    others = [f"{r}: {w}" for r, w in list(v.readings.items())[1:]]
    return word + (f" ({'; '.join(others)})" if others else "")


def claim_cell(claim: dict) -> str:
    tables = claim.get("tables") or ([claim["table"]] if claim.get("table") else [])
    links = ", ".join(f"[{t}]({t}.md)" for t in tables)
    paper = PAPERS[claim["paper"]]
    head = f"**{paper}**, " if claim.get("first_of_paper") else ""
    return f'{head}{claim["where"]}: "{claim["quote"]}"' + (f" ({links})" if links else "")


def markdown_table(verdicts: list[Verdict]) -> str:
    lines = [
        BEGIN,
        "",
        "| claim (paper's words) | paper | ours | holds? | why |",
        "|---|---|---|---|---|",
    ]
    for v in verdicts:
        cells = [claim_cell(v.claim), v.paper, v.ours, verdict_cell(v), v.claim.get("why", "")]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    lines += ["", END]
    return "\n".join(lines)


def replace_block(text: str, block: str) -> str:
    """`text` with the generated claims table between BEGIN and END replaced by `block`."""
    start, stop = text.find(BEGIN), text.find(END)
    if start < 0 or stop < 0:
        raise ValueError("the README has no generated claims table (markers missing)")
    return text[:start] + block + text[stop + len(END) :]


def counts(verdicts: list[Verdict]) -> dict[str, int]:
    out = dict.fromkeys(VERDICTS, 0)
    for v in verdicts:
        out[v.word] += 1
    return out
