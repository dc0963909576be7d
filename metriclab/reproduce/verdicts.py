"""Every claim's verdict by one rule, computed from the committed tables (issues 32, 39).

The claims of the four papers are listed once, in `claims.toml` beside this module: the paper's
words, where they stand, and which rows of which committed table (docs/reproduction/<table>.csv,
with the per-split values of splits/<table>.csv.gz) measure them. This module reads those tables and
decides each verdict by the rule; the claims table of docs/reproduction/README.md, the Reproduce
page's badges and the documentation are all rendered from `evaluate_all()`, and a test fails when
the README's table is not what the rule gives. A sentence of the README, the docs, a lesson or a
module docstring that speaks of a claim carries a marker `[claim ID: VERDICT]` (or
`[claim ID, READING: VERDICT]`), and tests/test_claim_prose.py fails when the word is not the
computed one (`prose_markers`, `check_prose`).

The rule is written once: each part of it is the docstring of the function that computes it
(`combine`, `direction_part`, `same_part`, `level_part`, `threshold_part`, `count_part`,
`best_part`, `across_part`, `family`, `evaluate`), and RULE_TEXT, which the README shows above the table and
which ends this docstring, is those docstrings joined.
"""

from __future__ import annotations

import inspect
import math
import re
import tomllib
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from scipy.stats import binomtest

from metriclab import resources
from metriclab.evaluation.signed_rank import signed_rank_p

ALPHA = 0.05
CLAIMS_FILE = Path(__file__).with_name("claims.toml")
DEFAULT_TABLES = resources.reproduction()  # docs/reproduction (a checkout) or the wheel's copy
INCONCLUSIVE = "inconclusive"
VERDICTS = ("yes", "partly", INCONCLUSIVE, "no", "yes (tests)", "yes (bench)", "not run")
PAPERS = {
    "tdl": "Li, Yang & Wang (2007)",
    "zhang": "Zhang (2003)",
    "kpca": "Chatpatanasiri et al. (2009)",
    "mody": "Mody (2009)",
}


@dataclass(frozen=True)
class Reading:
    """One reading of the TDL paper: how TDL's and LE's rows are named under it
    (reproduce.tdl.method_name) and when it was fixed, as the history shows it."""

    name: str
    tdl: str  # suffix of TDL's method name ("{r}" in claims.toml)
    le: str  # suffix of Laplacian Eigenmaps' method name ("{l}"): LE has no cost, so no 1/n
    fixed: str
    fills: tuple = ()  # other papers' readings: (placeholder, text) pairs, e.g. ("z", " (z-scored)")


# The paper calls its penalty "the normalized Laplacian" (Sect. 5.1) without saying which, and
# Eq. (3) drops the 1/n of Eqs. (1)-(2). The first reading is the library's default: a claim's
# headline verdict is the one under it, and every other reading run is listed beside it.
READINGS = (
    Reading(
        "unnormalized",
        "",
        "",
        "D − W; the library's default since commit 72ad661 (2026-11-23 16:51 UTC), adopted after "
        "Table 1 had been run under the symmetric reading, because it gave the paper's ionosphere "
        "lead (its commit message): chosen after looking",
    ),
    Reading(
        "symmetric",
        " [symmetric]",
        " [symmetric]",
        "I − D^-1/2 W D^-1/2; the first default, already in the repository's first commit 577285b "
        "(2026-11-23 11:48 UTC), which restored an earlier session's work with its results in it: "
        "the history cannot show whether it was fixed before any result was seen",
    ),
    Reading(
        "random_walk",
        " [random_walk]",
        " [random_walk]",
        "I − D^-1 W; a graph option since 577285b, run side by side with the others since commit "
        "1c3ed4f (2026-11-23 16:57 UTC), after the results above",
    ),
    Reading(
        "unnormalized, 1/n",
        " [unnormalized, 1/n]",
        "",
        "the costs of Eqs. (1)-(2) averaged instead of summed (cost_scale='mean'; LE unchanged); "
        "added in 72ad661 and run since 1c3ed4f, after the results above",
    ),
    Reading("symmetric, 1/n", " [symmetric, 1/n]", " [symmetric]", "as above, symmetric"),
    Reading("random_walk, 1/n", " [random_walk, 1/n]", " [random_walk]", "as above, random walk"),
)
READING_BY_NAME = {r.name: r for r in READINGS}
# Kept for callers that name a reading's suffix (reproduce.tdl.method_name's convention).
READING_SUFFIX = {r.name: r.tdl for r in READINGS}


# ---- the committed tables ----------------------------------------------------------------------


@dataclass
class Table:
    """One committed table: its rows and, where written, its per-split values."""

    name: str
    frame: pd.DataFrame
    splits: pd.DataFrame | None
    _rows: dict = field(init=False, repr=False)  # (setting, method) -> its first row
    _values: dict = field(init=False, repr=False)  # (setting, method) -> values in split order

    def __post_init__(self):
        # Indexed once: a verdict looks rows up thousands of times (boolean masks took 1.6 s).
        self._rows = {}
        for i, key in enumerate(zip(self.frame.setting, self.frame.method, strict=True)):
            self._rows.setdefault(key, i)
        self._values = {}
        if self.splits is not None:
            s = self.splits.sort_values("split", kind="stable")
            for key, hit in s.groupby(["setting", "method"], sort=False):
                self._values[key] = hit["value"].to_numpy(dtype=float)

    def row(self, setting: str, method: str) -> pd.Series:
        i = self._rows.get((setting, method))
        if i is None:
            raise KeyError(f"{self.name}: no row ({setting!r}, {method!r})")
        return self.frame.iloc[i]

    def values(self, setting: str, method: str) -> np.ndarray | None:
        """Per-split values in split order, or None where the table has none."""
        if self.splits is None:
            return None
        hit = self._values.get((setting, method))
        return None if hit is None else hit.copy()

    def settings_with(self, *methods: str) -> list[str]:
        """Settings (in table order) that have a row for every one of `methods`."""
        return [
            s
            for s in dict.fromkeys(self.frame.setting)
            if all((s, m) in self._rows for m in methods)
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
    return signed_rank_p(d)  # scipy.stats.wilcoxon(d)'s p, its permutation branch at once


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


def welch(mean1, se1, df1, mean2, se2, df2) -> tuple[float, float, float]:
    """(t, degrees of freedom, two-sided p) of Welch's test of mean1 = mean2 from each side's
    standard error and degrees of freedom (math.inf for a binomial standard error, which then
    adds no term to the Welch-Satterthwaite sum). With finite degrees of freedom on both sides
    this is scipy.stats.ttest_ind_from_stats(..., equal_var=False) (tests/test_verdicts.py)."""
    var = se1**2 + se2**2
    if var <= 0:
        return (math.inf if mean1 != mean2 else 0.0, math.inf, 0.0 if mean1 != mean2 else 1.0)
    t = (mean1 - mean2) / math.sqrt(var)
    terms = sum(se**4 / df for se, df in ((se1, df1), (se2, df2)) if math.isfinite(df) and se > 0)
    df = var**2 / terms if terms > 0 else math.inf
    p = 2 * (stats.t.sf(abs(t), df) if math.isfinite(df) else stats.norm.sf(abs(t)))
    return float(t), float(df), float(p)


def holm_adjusted(p) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values: the k-th smallest of m is multiplied by
    m − k + 1, and each is raised to the largest before it (capped at 1), so rejecting where the
    adjusted p < α keeps the chance of any false rejection among the m at most α, whatever their
    dependence. NaN (no test) stays NaN and is not counted in m. (scipy.stats has no Holm:
    false_discovery_control is Benjamini-Hochberg / Yekutieli.)

    >>> holm_adjusted([0.01, 0.04, 0.03, 0.005]).round(3).tolist()
    [0.03, 0.06, 0.06, 0.02]
    >>> holm_adjusted([0.02, float("nan"), 0.3]).round(3).tolist()
    [0.04, nan, 0.3]
    """
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    tested = np.flatnonzero(np.isfinite(p))
    order = tested[np.argsort(p[tested], kind="stable")]
    stepped = (tested.size - np.arange(tested.size)) * p[order]
    out[order] = np.minimum(np.maximum.accumulate(stepped), 1.0)
    return out


def tost_p(mean: float, se: float, df: float, margin: float) -> float:
    """The larger p of the two one-sided t-tests of "the difference is at least the margin"
    (Schuirmann's TOST): below α exactly when the (1 − 2α) interval lies within ± the margin."""
    if se <= 0:
        return 0.0 if abs(mean) < margin else 1.0
    below = stats.t.sf((mean + margin) / se, df)  # H0: difference ≤ −margin
    above = stats.t.cdf((mean - margin) / se, df)  # H0: difference ≥ +margin
    return float(max(below, above))


def binomial_se(value: float, scale: float, n_test: int) -> float:
    """Standard error of a rate measured on n_test points, in the row's unit (scale 100 for %, n_test
    for a count of correct points, 1 for a proportion)."""
    p = min(max(value / scale, 0.0), 1.0)
    return scale * math.sqrt(p * (1 - p) / n_test)


def _unit(row: pd.Series, spec: dict) -> tuple[float, int | None]:
    """(scale, test points): a count 'correct of N test points', a percentage or a proportion."""
    metric = str(row.get("metric", ""))
    hit = re.search(r"of ([\d,]+) test", metric)
    if hit:
        n = int(hit.group(1).replace(",", ""))
        return float(n), n
    return (100.0 if "%" in metric else 1.0), spec.get("paper_test_size")


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


def _signed(value: float) -> str:
    return ("+" if value > 0 else "") + _num(value)


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

HOLDS, FAILS = "holds", "does not"


@dataclass
class Part:
    label: str
    holds: bool
    text: str  # ours, with the test
    inconclusive: bool = False  # neither shown to hold nor shown not to (the "same" rule)
    p: float = math.nan  # the p of the part's test; NaN where none is made (counting, one value)
    by_rejecting: bool = True  # holds when its test rejects; False for a level (holds unless)
    p_differs: float = math.nan  # a *Same* part's paired test, which makes it fail when it rejects
    holm: float = math.nan  # `p` adjusted by Holm's method over the claim's parts (`family`)
    holm_differs: float = math.nan  # `p_differs` adjusted likewise

    @property
    def state(self) -> str:
        return INCONCLUSIVE if self.inconclusive else (HOLDS if self.holds else FAILS)


@dataclass
class Verdict:
    claim: dict
    word: str  # the headline verdict: under the library's default reading where there are readings
    ours: str
    paper: str
    parts: list[Part] = field(default_factory=list)
    readings: dict[str, str] = field(default_factory=dict)  # reading -> verdict, the default first
    reading_parts: dict[str, list[Part]] = field(default_factory=dict)  # reading -> its parts

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


def _pair(tables: Tables, table: Table, spec: dict):
    """The two paired series of a direction / same part (the worse one may be in another table or
    setting, on the same splits)."""
    setting, better, worse = spec["setting"], spec["better"], spec["worse"]
    _, a, per_image = _series(table, setting, better)
    other = tables[spec["table_worse"]] if spec.get("table_worse") else table
    _, b, _ = _series(other, spec.get("setting_worse", setting), worse)
    if a.size != b.size:
        raise ValueError(f"{table.name}: {better} and {worse} have different split counts")
    return a, b, per_image


def _pair_text(spec, a, b, d, p, per_image) -> str:
    if per_image:
        over = f", McNemar over {a.size} images"
    else:
        over = f", {a.size} splits" if a.size > 1 else ""
    return (
        f"{spec.get('short_better', spec['better'])} {_num(a.mean())} vs "
        f"{spec.get('short_worse', spec['worse'])} {_num(b.mean())} ({_signed(d)}, {_p(p)}{over})"
    )


def direction_part(tables: Tables, table: Table, spec: dict, lower_is_better: bool) -> Part:
    """*Direction* (A beats B): the mean paired difference over our splits has the claimed sign and
    the two-sided Wilcoxon signed-rank test over the splits rejects "no difference" at α; on a
    single split the paired unit is the test image and the test is McNemar's exact test. Each split
    draws its labelled set afresh, so the differences are independent given the data set: the test
    speaks of random splits of that data set, as the papers' averages do, not of new data from its
    source; with n splits its smallest p is 2 / 2ⁿ, so five or fewer cannot show a difference."""
    a, b, per_image = _pair(tables, table, spec)
    result, d, p = outcome(a, b, lower_is_better, per_image)
    label = spec.get("label") or spec["setting"]
    return Part(label, result == 1, _pair_text(spec, a, b, d, p, per_image), p=p)


def same_part(tables: Tables, table: Table, spec: dict, lower_is_better: bool) -> Part:
    """*Same* (no effect): the claim names its margin, the smallest difference it would call an
    effect, written in claims.toml before the verdict was computed. The part holds when the 90 %
    confidence interval of the mean paired difference (Student t over the splits, or over the test
    images of one test set) lies within ± the margin: two one-sided tests at α (TOST; the cell
    gives the larger of their p). It does not
    hold when the paired test of *Direction* rejects "no difference" and the interval reaches past
    the margin. Otherwise it is "inconclusive": the data cannot tell an effect of the margin's size
    from none."""
    a, b, per_image = _pair(tables, table, spec)
    _, d, p = outcome(a, b, lower_is_better, per_image)
    label = spec.get("label") or spec["setting"]
    return _same(a - b, p, float(spec["margin"]), label, _pair_text(spec, a, b, d, p, per_image))


def _same(diff: np.ndarray, p_differs: float, margin: float, label: str, head: str) -> Part:
    """A *Same* part from the paired differences: TOST's p and its 90 % interval, and the paired
    test's p (`p_differs`), which makes the part fail where the interval reaches past the margin."""
    n, d = diff.size, float(np.mean(diff))
    if n > 1:
        se = float(np.std(diff, ddof=1)) / math.sqrt(n)
        half, p = stats.t.ppf(1 - ALPHA, n - 1) * se, tost_p(d, se, n - 1, margin)
    else:
        half, p = math.inf, math.nan
    equivalent = math.isfinite(p) and p < ALPHA
    differs = math.isfinite(p_differs) and p_differs < ALPHA
    text = (
        f"{head}; 90 % interval of the difference [{_num(d - half)}, {_num(d + half)}] against "
        f"the margin ± {_num(margin)}" + (f" (TOST {_p(p)})" if math.isfinite(p) else "")
    )
    return Part(
        label,
        equivalent,
        text,
        inconclusive=not equivalent and not differs,
        p=p,
        p_differs=p_differs,
    )


def level_part(tables: Tables, table: Table, spec: dict, lower_is_better: bool = False) -> Part:
    """*Level* (the paper's number): Welch's two-sample t-test of the paper's mean against ours, each
    with its standard error: the paper's standard deviation over the square root of its number of
    splits, or, where the paper ran one test set of N points, the binomial standard error of its
    rate; ours likewise from our splits, or from the per-image errors of our one test set. Where the
    paper states a number of splits but no spread, its standard deviation is taken to be ours (said
    in the cell). The level holds when the test does not reject "the same mean" at α (Holm-adjusted
    over the claim's levels, see *Family*); the cell gives the gap in standard errors of the
    difference."""
    row = table.row(spec["setting"], spec["method"])
    paper, ours = float(row.paper), float(row.ours_mean)
    scale, n_test = _unit(row, spec)
    n_ours = int(row.n_splits)
    ours_std = float(row.ours_std) if math.isfinite(float(row.ours_std)) else math.nan
    values = table.values(spec["setting"], spec["method"])
    if n_ours > 1:
        se_o, df_o = ours_std / math.sqrt(n_ours), n_ours - 1
    elif values is not None and values.size > 1:  # one test set: its per-image errors
        se_o, df_o = float(np.std(values, ddof=1)) / math.sqrt(values.size), math.inf
    elif n_test:
        se_o, df_o = binomial_se(ours, scale, n_test), math.inf
    else:
        raise ValueError(f"{table.name}: ({spec['setting']!r}, {spec['method']!r}) has no spread")
    paper_std = spec.get("paper_std")
    if paper_std is None and "paper_std" in row.index and math.isfinite(float(row.paper_std)):
        paper_std = float(row.paper_std)
    paper_n = spec.get("paper_n")
    if paper_std is not None and paper_n and paper_n > 1:
        se_p, df_p, whose = (
            float(paper_std) / math.sqrt(paper_n),
            paper_n - 1,
            f"paper ± {_num(float(paper_std))} over {paper_n} splits",
        )
    elif n_test and not (paper_n and paper_n > 1):
        se_p, df_p, whose = (
            binomial_se(paper, scale, n_test),
            math.inf,
            f"paper: one test set of {n_test:,}",
        )
    elif paper_n and paper_n > 1 and math.isfinite(ours_std):
        se_p, df_p, whose = (
            ours_std / math.sqrt(paper_n),
            paper_n - 1,
            f"paper's std taken as ours, {paper_n} splits",
        )
    else:
        raise ValueError(
            f"claim part {spec.get('label')}: the paper's spread is unknown (give paper_n, "
            "paper_std or paper_test_size in claims.toml)"
        )
    t, _, p = welch(ours, se_o, df_o, paper, se_p, df_p)
    holds = p >= ALPHA
    label = spec.get("label") or f"{spec['setting']}, {spec['method']}"
    shown = f"{_num(ours)} ± {_num(ours_std)}" if math.isfinite(ours_std) else _num(ours)
    text = (
        f"{shown} vs {_num(paper)} ({_signed(ours - paper)}; {whose}; Welch t = {t:.1f}, {_p(p)})"
    )
    return Part(label, holds, text, p=p, by_rejecting=False)


SHOWN_OP = {"<": "<", "<=": "≤", ">": ">", ">=": "≥"}
OPS = {
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
}


def threshold_part(tables: Tables, table: Table, spec: dict, lower_is_better: bool = False) -> Part:
    """*Threshold* ("fewer than 20 iterations", "above 95 %"): a one-sided one-sample t-test of our
    per-split values against the bound; the part holds when it rejects "on the other side of the
    bound" at α. A claim about the runs themselves ("in every run", "not always") is decided by
    counting them, with no test. A claim about the spread ("almost the same whatever the start") is
    a one-sided χ² test that our split-to-split standard deviation is below the bound. A single
    value is decided by its side, and the cell says "one value"."""
    row = table.row(spec["setting"], spec["method"])
    bound, op = float(spec["bound"]), spec["op"]
    label = spec.get("label") or f"{spec['setting']}, {spec['method']}"
    values = table.values(spec["setting"], spec["method"])
    if values is None or values.size < 2 or int(row.n_splits) < 2:
        values = np.array([float(row.ours_mean)])
    n = values.size
    claimed = f"claimed {SHOWN_OP[op]} {_num(bound)}"
    if spec.get("spread"):
        sd = float(np.std(values, ddof=1))
        p = float(stats.chi2.cdf((n - 1) * sd**2 / bound**2, n - 1)) if bound > 0 else 1.0
        text = f"std {_num(sd)} over {n} runs (mean {_num(values.mean())}; {claimed}, χ² {_p(p)})"
        return Part(label, p < ALPHA, text, p=p)
    on_side = OPS[op](values, bound)
    if spec.get("runs") in ("every", "some"):
        holds = bool(on_side.all() if spec["runs"] == "every" else on_side.any())
        text = f"{int(on_side.sum())} of {n} runs {SHOWN_OP[op]} {_num(bound)} ({spec['runs']} run claimed)"
        return Part(label, holds, text)
    mean = float(values.mean())
    if n == 1:
        return Part(label, bool(on_side[0]), f"{_num(mean)} ({claimed}; one value)")
    sd = float(np.std(values, ddof=1))
    if sd == 0:
        p = 0.0 if bool(OPS[op](mean, bound)) and mean != bound else 1.0
    else:
        t = (mean - bound) / (sd / math.sqrt(n))
        p = float(stats.t.cdf(t, n - 1) if op in ("<", "<=") else stats.t.sf(t, n - 1))
    text = f"{_num(mean)}, splits {_num(values.min())}–{_num(values.max())} ({claimed}, one-sided t {_p(p)})"
    return Part(label, p < ALPHA, text, p=p)


def count_part(tables: Tables, claim: dict) -> Part:
    """*Count* (wins / draws / losses over data sets): each data set is a win, a draw or a loss by
    the paired test of *Direction*; the counts at the paper's precision (means rounded to its
    decimals) are shown beside. The claim holds with at least the paper's wins and at most its
    losses."""
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
    """*Best*: the number of data sets on which the named method has the best mean at the paper's
    precision (ties count), ours against the paper's own table; it holds when ours is at least the
    paper's. (A count of means, not a test: the paper's claim is about its own table's means.)"""
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


def _across_diffs(tables: Tables, pair: dict) -> np.ndarray:
    table = tables[pair["table"]]
    return np.array(
        [
            float(table.row(s, pair["better"]).ours_mean)
            - float(table.row(s, pair["worse"]).ours_mean)
            for s in table.settings_with(pair["better"], pair["worse"])
        ]
    )


def across_part(tables: Tables, claim: dict) -> list[Part]:
    """*Across* ("A is slightly better than B" over many data sets): the differences of our means,
    one per data set, tested by the Wilcoxon signed-rank test over the data sets as for
    *Direction*. With a margin (the claim "comparable" over data sets), the part is decided as for
    *Same*, the data set being the paired unit."""
    groups: dict[str, list[np.ndarray]] = {}
    for pair in claim["pairs"]:
        groups.setdefault(pair.get("part", claim.get("label", "across data sets")), []).append(
            _across_diffs(tables, pair)
        )
    out = []
    for label, pieces in groups.items():
        diffs = np.concatenate(pieces)
        if "margin" in claim:
            out.append(_same_from_diffs(diffs, {"margin": claim["margin"], "label": label}))
            continue
        result, d, p = outcome(diffs, np.zeros_like(diffs))
        text = f"mean difference {_signed(d)} over {diffs.size} data sets ({_p(p)})"
        out.append(Part(label, result == 1, text, p=p))
    return out


def _same_from_diffs(diffs: np.ndarray, spec: dict) -> Part:
    p = paired_p(diffs, np.zeros_like(diffs))
    head = f"mean difference {_signed(float(diffs.mean()))} over {diffs.size} data sets ({_p(p)})"
    return _same(diffs, p, float(spec["margin"]), spec["label"], head)


# ---- claims ------------------------------------------------------------------------------------


def _substitute(value, reading: Reading):
    if isinstance(value, str):
        value = value.replace("{r}", reading.tdl).replace("{l}", reading.le)
        for key, text in reading.fills:
            value = value.replace("{" + key + "}", text)
        return value
    if isinstance(value, list):
        return [_substitute(v, reading) for v in value]
    return value


def _with_reading(spec: dict, reading: Reading | None) -> dict:
    if reading is None:
        return spec
    return {k: _substitute(v, reading) for k, v in spec.items()}


PART_RULES = {
    "direction": direction_part,
    "same": same_part,
    "level": level_part,
    "threshold": threshold_part,
}
CLAIM_RULES = {"count": count_part, "best": best_part, "across": across_part}


def _parts(claim: dict, tables: Tables, reading: Reading | None) -> list[Part]:
    rule = claim["rule"]
    lower = bool(claim.get("lower_is_better", False))
    if rule in PART_RULES:
        out = []
        for spec in claim["parts"]:
            spec = _with_reading(
                {
                    **{k: claim[k] for k in ("paper_n", "paper_test_size", "margin") if k in claim},
                    **spec,
                },
                reading,
            )
            table = tables[spec.get("table", claim.get("table"))]
            out.append(PART_RULES[rule](tables, table, spec, lower))
        return family(out)
    if rule not in CLAIM_RULES:
        raise ValueError(f"claim {claim['id']}: unknown rule {rule!r}")
    claim = {
        **claim,
        **{
            key: [_with_reading(item, reading) for item in claim[key]]
            for key in ("pairs", "groups")
            if key in claim
        },
    }
    found = CLAIM_RULES[rule](tables, claim)
    return family(found if isinstance(found, list) else [found])


def _holm_shown(text: str, key: str, p: float, adjusted: float) -> str:
    """`text` with "Holm …" after its `key` (the p as shown), where the adjusted p shows otherwise."""
    shown, holm = _p(p), _p(adjusted)
    if not math.isfinite(adjusted) or holm == shown or key not in text:
        return text
    return text.replace(key, f"{key}, Holm {holm.removeprefix('p ').removeprefix('= ')}", 1)


def family(parts: list[Part]) -> list[Part]:
    """*Family*: the parts of one claim under one reading are one family, and each part's p is
    adjusted over it by Holm's step-down method (the cell shows both, "p = 0.031, Holm 0.12", where
    they differ): it keeps at α the chance that any part is wrongly said to hold (or a *Level* not
    to), which deciding each part at α would let grow with the number of parts. A part that holds by rejecting (*Direction*,
    *Threshold*'s t and χ² tests, *Same*'s TOST, *Across*) holds when its Holm-adjusted p < α; but
    when every such part rejects at α unadjusted, they all hold: "all of them hold" is then an
    intersection–union test, which every part must pass at α, of size α with no adjustment. A
    *Level* holds unless its Holm-adjusted p < α: "these numbers differ from the paper's" is the
    statement the family makes. A *Same* part does not hold only when its paired test's p, adjusted
    over the family's *Same* parts, is below α and its interval reaches past the margin; otherwise
    it is inconclusive. Parts with no test (counting runs, one value, *Count*, *Best*) are decided
    as they stand and are not counted in the adjustment."""
    adjusted = holm_adjusted([part.p for part in parts]).tolist()
    adjusted_differs = holm_adjusted([part.p_differs for part in parts]).tolist()
    rejecting = [part for part in parts if part.by_rejecting and math.isfinite(part.p)]
    # Berger (1982): "all hold" rejects the union of the nulls when each test rejects at α. With
    # Holm otherwise this is the closed test whose local test of an intersection is Bonferroni or
    # "every p < α": of size α for independent parts, at most 2α under the worst dependence.
    every_one_rejects = all(part.holds for part in rejecting)
    out = []
    for part, holm, holm_differs in zip(parts, adjusted, adjusted_differs, strict=True):
        if not math.isfinite(part.p):
            holds = part.holds
        elif part.by_rejecting:
            holds = part.holds and (every_one_rejects or holm < ALPHA)
        else:
            holds = not holm < ALPHA
        if math.isfinite(part.p_differs):  # a Same part: its paired test's p is shown first
            fails = not part.holds and holm_differs < ALPHA
            text = _holm_shown(part.text, f"TOST {_p(part.p)}", part.p, holm)
            text = _holm_shown(text, _p(part.p_differs), part.p_differs, holm_differs)
        else:
            fails = not part.inconclusive
            text = _holm_shown(part.text, _p(part.p), part.p, holm)
        out.append(
            replace(
                part,
                holds=holds,
                inconclusive=not holds and not fails,
                text=text,
                holm=holm,
                holm_differs=holm_differs,
            )
        )
    return out


def combine(parts: list[Part]) -> str:
    """A claim has one or more named parts, all the comparisons its sentence makes (none left out
    for how it came out), each decided by its test and then over the claim's parts by *Family*
    below: "yes" when every part holds; "no" when none holds and at least one does not; "partly"
    when some hold and some do not; "inconclusive" when none fails but not all are shown to hold.
    Each part is named in the cell with its test."""
    held = sum(p.state == HOLDS for p in parts)
    failed = sum(p.state == FAILS for p in parts)
    if held == len(parts):
        return "yes"
    if failed == 0:
        return INCONCLUSIVE
    return "no" if held == 0 else "partly"


MANY_PARTS = 5  # past this many parts the cell lists the ones that do not hold


IUT_NOTE = "every part rejects at α: all hold by the intersection–union test"


def _ours_text(parts: list[Part]) -> str:
    if len(parts) == 1:
        return parts[0].text + (f" ({parts[0].state})" if parts[0].inconclusive else "")
    # all hold, though some only unadjusted (`family`'s exception): the cell says why
    by_iut = all(p.state == HOLDS for p in parts) and any(
        p.by_rejecting and p.holm >= ALPHA for p in parts
    )
    if len(parts) >= MANY_PARTS:
        failing = [p for p in parts if p.state != HOLDS]
        # levels whose test rejects alone but not after Holm: shown, as the ones that fail are
        adjusted = [p for p in parts if p.state == HOLDS and not p.by_rejecting and p.p < ALPHA]
        head = f"{len(parts) - len(failing)} of {len(parts)} hold"
        if by_iut:
            head += f" ({IUT_NOTE})"
        if failing:
            head += "; not: " + "; ".join(f"{p.label} {p.text} ({p.state})" for p in failing)
        if adjusted:
            head += "; held after Holm's adjustment: " + "; ".join(
                f"{p.label} {p.text}" for p in adjusted
            )
        return head
    return "; ".join(f"{p.label}: {p.text} ({p.state})" for p in parts) + (
        f" ({IUT_NOTE})" if by_iut else ""
    )


def _readings_of(claim: dict, tables: Tables) -> list[Reading | None]:
    """The readings a claim is computed under: `readings = true` means every reading of the TDL
    paper whose rows the claim's table holds (the default always; a reading with none of its rows
    is one that was not run there); a list of TDL reading names, those; a list of tables
    (name, fixed, and a text for each placeholder of the claim's rows), a reading of another paper
    (the first is the headline)."""
    wanted = claim.get("readings")
    if not wanted:
        return [None]
    if isinstance(wanted, list) and wanted and isinstance(wanted[0], dict):
        return [
            Reading(
                r["name"],
                "",
                "",
                r.get("fixed", ""),
                tuple((k, v) for k, v in r.items() if k not in ("name", "fixed")),
            )
            for r in wanted
        ]
    names = [r.name for r in READINGS] if wanted is True else list(wanted)
    out = []
    for name in names:
        reading = READING_BY_NAME[name]
        try:
            _parts(claim, tables, reading)
        except KeyError:
            if name == READINGS[0].name or wanted is not True:
                raise
            continue
        out.append(reading)
    return out


def evaluate(claim: dict, tables: Tables) -> Verdict:
    """*Readings*: where the paper leaves a choice open that changes the answer (TDL's Laplacian
    and its 1/n; Zhang's feature scaling), the claim is computed under every reading that was run,
    each with its verdict; the headline verdict is the one under the library's default reading
    (for Zhang's Table 1, raw features, the first reading run), and the claim or the list below the
    rule says when each reading was fixed. *Stated*: rows with nothing to compute carry "yes
    (tests)" (checked by the named tests), "yes (bench)" (a speed measured in bench/) or "not run",
    with the reason."""
    if claim["rule"] == "stated":
        if claim["verdict"] not in VERDICTS:
            raise ValueError(f"claim {claim['id']}: verdict must be one of {VERDICTS}")
        return Verdict(
            claim, claim["verdict"], claim.get("ours", "—"), claim.get("paper_text", "—")
        )
    readings = _readings_of(claim, tables)
    by_reading, texts, first_parts, parts_by_reading = {}, [], None, {}
    for reading in readings:
        parts = _parts(claim, tables, reading)
        word = combine(parts)
        if first_parts is None:
            first_parts = parts
        if reading is not None:
            by_reading[reading.name] = word
            parts_by_reading[reading.name] = parts
            fixed = f"; fixed: {reading.fixed}" if reading.fills and reading.fixed else ""
            texts.append(f"*{reading.name}* ({word}{fixed}): {_ours_text(parts)}")
        else:
            texts.append(_ours_text(parts))
    word = combine(first_parts)
    ours = " — ".join(texts)
    if claim.get("ours_note"):
        ours = f"{ours}; {claim['ours_note']}"
    return Verdict(
        claim, word, ours, claim.get("paper_text", "—"), first_parts, by_reading, parts_by_reading
    )


def _paragraph(function) -> str:
    return " ".join(inspect.cleandoc(function.__doc__).split())


RULE_FUNCTIONS = (
    combine,
    direction_part,
    same_part,
    level_part,
    threshold_part,
    count_part,
    best_part,
    across_part,
    family,
    evaluate,
)
RULE_TEXT = "\n\n".join(
    [
        f"**The verdict rule** (computed by `metriclab.reproduce.verdicts` from the committed "
        f"tables, at α = {ALPHA}; each paragraph is the docstring of the function that computes "
        "it, and a test fails when this table disagrees with it)."
    ]
    + [_paragraph(f) for f in RULE_FUNCTIONS]
)
READINGS_TEXT = (
    "**When each TDL reading was fixed** (from the git history): "
    + "; ".join(f"*{r.name}*: {r.fixed}" for r in READINGS)
    + "."
)
__doc__ = __doc__ + "\n" + RULE_TEXT + "\n\n" + READINGS_TEXT + "\n"


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
    """The headline verdict, and under readings each reading's (the default named first)."""
    word = f"**{v.word}**"
    if not v.readings:
        return word
    items = list(v.readings.items())
    shown = [f"{items[0][0]}, the headline reading"] + [f"{r}: {w}" for r, w in items[1:]]
    return word + f" ({'; '.join(shown)})"


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
        RULE_TEXT,
        "",
        READINGS_TEXT,
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


# ---- sentences that speak of a claim -----------------------------------------------------------

# `[claim tdl-table1-levels: no]` or `[claim tdl-fig1, symmetric: partly]` in prose.
MARKER = re.compile(r"\[claim ([a-z0-9-]+)(?:, ([a-z_/, 1]+?))?: ([a-z ()]+)\]")


def prose_markers(text: str) -> list[tuple[str, str | None, str]]:
    """(claim id, reading or None, verdict word) of each claim marker in `text`."""
    return [(m.group(1), m.group(2), m.group(3)) for m in MARKER.finditer(text)]


def check_prose(text: str, verdicts: list[Verdict], where: str = "") -> list[str]:
    """The disagreements between the markers of `text` and the computed verdicts, and every claim
    id named in `text` outside a marker (a sentence that speaks of a claim must carry its verdict)."""
    by_id = {v.id: v for v in verdicts}
    problems = []
    for claim_id, reading, word in prose_markers(text):
        v = by_id.get(claim_id)
        if v is None:
            problems.append(f"{where}: [claim {claim_id}]: no such claim")
            continue
        computed = v.readings.get(reading) if reading else v.word
        if computed is None:
            problems.append(f"{where}: [claim {claim_id}, {reading}]: no such reading")
        elif computed != word:
            problems.append(
                f"{where}: [claim {claim_id}{', ' + reading if reading else ''}: {word}] but the rule "
                f"gives {computed!r}: correct the sentence and its marker"
            )
    bare = MARKER.sub("", text)
    for claim_id in by_id:
        if re.search(rf"(?<![\w/.-]){re.escape(claim_id)}(?![\w-])", bare):
            problems.append(f"{where}: claim {claim_id} named without its verdict marker")
    return problems
