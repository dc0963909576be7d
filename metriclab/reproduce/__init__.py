"""Reproductions of the papers' tables and figures.

Each module here (tdl, zhang, kpca_trick, tangent) exposes `EXPERIMENTS: list[Experiment]`.
`Experiment.run(fast=..., n_splits=..., seed=..., progress=...)` returns a pandas DataFrame with at
least the columns of `RESULT_COLUMNS`: one row per (setting, method), the paper's number beside ours.

The runner (`reproduce`, used by `python -m metriclab reproduce`) runs experiments, times them and
writes `<out>/<name>.md` (the table: paper, ours mean ± std, difference, protocol; then the notes)
and `<out>/<name>.csv` (the experiment's full table).
"""

from __future__ import annotations

import math
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

import numpy as np
import pandas as pd

RESULT_COLUMNS = (
    "setting",  # data set or condition, e.g. "wine" or "two moons, λ=16"
    "method",
    "metric",  # e.g. "1-NN error %" or "accuracy %"
    "paper",  # the paper's number (NaN where it gives none)
    "ours_mean",
    "ours_std",
    "n_splits",
    "protocol",  # what we ran: split sizes, preprocessing, classifier
    "note",  # why ours differs, where known
)
# Optional column of an experiment's frame: each row's per-split values (a list, in split order,
# in the row's unit). The runner moves it to `splits/<name>.csv.gz` (setting, method, split, value),
# where the claims' paired tests read it (metriclab.reproduce.verdicts).
SPLITS_COLUMN = "ours_splits"


def split_row(setting, method, metric, paper, values, protocol, note="", one_split_std=math.nan):
    """One row of RESULT_COLUMNS from the per-split `values` (in the row's unit), which it keeps
    under SPLITS_COLUMN: their mean, their standard deviation (ddof=1; `one_split_std` for a
    single split) and their count (NaN mean for none)."""
    values = np.asarray(values, dtype=np.float64)
    return {
        "setting": setting,
        "method": method,
        "metric": metric,
        "paper": paper,
        "ours_mean": float(values.mean()) if values.size else math.nan,
        "ours_std": float(values.std(ddof=1))
        if values.size > 1
        else (one_split_std if values.size else math.nan),
        "n_splits": int(values.size),
        SPLITS_COLUMN: values.tolist(),
        "protocol": protocol,
        "note": note,
    }


PAPER_MODULES = (
    "tdl",
    "tdl_mnist",
    "tdl_tangent",
    "zhang",
    "kpca_trick",
    "kpca_causes",
    "tangent",
    "tangent_causes",
)


@dataclass(frozen=True)
class Experiment:
    name: str  # CLI name, e.g. "tdl-uci"
    title: str
    paper: str  # file stem in shared/papers
    run: Callable  # run(fast: bool, n_splits: int | None, seed: int, progress) -> DataFrame
    description: str = ""


def experiments() -> dict[str, Experiment]:
    """List every reproduction experiment of the four papers.

    Returns
    -------
    dict of str to Experiment
        The experiments by name (``"tdl-moons"``, ``"zhang-iris"``, ...): each has a
        ``title``, the ``paper`` it reproduces and a ``run`` function.

    See Also
    --------
    run_experiment : Run one.
    reproduce : Run several and write their tables.

    Examples
    --------
    >>> from metriclab.reproduce import experiments
    >>> found = experiments()
    >>> "tdl-moons" in found and "zhang-iris" in found
    True
    >>> found["zhang-iris"].paper
    'zhang-2003-discriminant-kernels-MDS'
    """
    found: dict[str, Experiment] = {}
    for module_name in PAPER_MODULES:
        try:
            module = import_module(f"metriclab.reproduce.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"metriclab.reproduce.{module_name}":
                continue
            raise
        for exp in getattr(module, "EXPERIMENTS", ()):
            found[exp.name] = exp
    return found


# ----------------------------------------------------------------------------- runner


def _listed(values) -> list:
    """A row's per-split values; rows without them (NaN, None) have none."""
    return list(values) if isinstance(values, list | tuple | np.ndarray) else []


def per_split_values(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """(the table without SPLITS_COLUMN, its per-split values in long form or None)."""
    if SPLITS_COLUMN not in frame.columns:
        return frame, None
    long = [
        {"setting": r.setting, "method": r.method, "split": i, "value": float(v)}
        for r in frame.itertuples(index=False)
        for i, v in enumerate(_listed(getattr(r, SPLITS_COLUMN)))
    ]
    return frame.drop(columns=SPLITS_COLUMN), pd.DataFrame(
        long, columns=["setting", "method", "split", "value"]
    )


def check_results(frame: pd.DataFrame, name: str = "") -> pd.DataFrame:
    """The experiment's table with every RESULT_COLUMNS column, in that order (extra columns kept)."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"experiment {name!r} returned {type(frame).__name__}, not a DataFrame")
    missing = [c for c in RESULT_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"experiment {name!r} returned no column(s) {missing}")
    extra = [c for c in frame.columns if c not in RESULT_COLUMNS]
    return frame[list(RESULT_COLUMNS) + extra].reset_index(drop=True)


@dataclass
class Outcome:
    """What one reproduction run produced: its table (or the error) and how long it took."""

    experiment: Experiment
    results: pd.DataFrame | None
    seconds: float
    fast: bool
    n_splits: int | None
    seed: int
    error: str | None = None
    files: tuple = ()
    code: str = ""  # git commit of the code that ran, where known
    splits: pd.DataFrame | None = None  # per-split values (setting, method, split, value)
    command: str = "python -m metriclab"  # how the report's rerun line starts (the CLI's prog)


def code_state() -> str:
    """'commit abc1234' (+ ', with uncommitted changes' when metriclab/ differs), or 'unknown'."""
    import subprocess

    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "diff", "--quiet", "HEAD", "--", "metriclab"],
            cwd=root,
            capture_output=True,
            timeout=10,
        ).returncode
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"commit {head}" + (", with uncommitted changes in metriclab/" if dirty else "")


def run_experiment(
    exp: Experiment,
    *,
    fast: bool = False,
    n_splits: int | None = None,
    seed: int = 0,
    progress: Callable | None = None,
) -> Outcome:
    """Run one experiment and time it; an error is captured (with its traceback), not raised.

    Parameters
    ----------
    exp : Experiment
        One of :func:`experiments`.
    fast : bool, default=False
        A smaller run (fewer splits or points) for a quick look; the committed tables are full
        runs.
    n_splits : int, optional
        Splits per setting; None: the experiment's own (the paper's).
    seed : int, default=0
        The seed of the splits.
    progress : callable, optional
        ``progress(done, total, message)``, called with the experiment's steps.

    Returns
    -------
    Outcome
        ``results`` (one row per setting and method: the paper's number beside ours, mean and
        std), ``seconds``, and ``error`` (None, or the traceback).

    See Also
    --------
    reproduce : Run several and write their tables.

    Examples
    --------
    >>> from metriclab.reproduce import experiments, run_experiment
    >>> outcome = run_experiment(experiments()["zhang-iris"], fast=True, n_splits=2)
    >>> outcome.error is None
    True
    >>> outcome.results.columns[:6].tolist()
    ['setting', 'method', 'metric', 'paper', 'ours_mean', 'ours_std']
    """
    n_splits = _checked_splits(n_splits)
    code = code_state()
    start = time.perf_counter()
    try:
        frame = exp.run(fast=fast, n_splits=n_splits, seed=seed, progress=progress)
        frame = check_results(frame, exp.name)
        frame, splits = per_split_values(frame)
        error = None
    except Exception:  # noqa: BLE001 - one failing experiment must not stop `reproduce all`
        frame, splits, error = None, None, traceback.format_exc()
    seconds = time.perf_counter() - start
    return Outcome(exp, frame, seconds, fast, n_splits, seed, error, code=code, splits=splits)


def decimals_for(value: float) -> int:
    """Decimals to show for a number of this size: 3 below 1, 2 below 100, else 1."""
    return 3 if abs(value) < 1 else (2 if abs(value) < 100 else 1)


def format_number(value, decimals: int | None = None) -> str:
    """A table cell: '—' for a missing number, else `decimals` (default: by its size) decimals."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(v):
        return "—"
    return f"{v:.{decimals_for(v) if decimals is None else decimals}f}"


LONG_PROTOCOL = (
    60  # longer protocol texts are listed once under the table and referred to as P1, ...
)


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown_report(outcome: Outcome) -> str:
    """The experiment's table as markdown: paper's number, ours (mean ± std), difference, protocol;
    then the notes, each once."""
    exp = outcome.experiment
    mode = "fast (smoke-test sizes, NOT the full protocol)" if outcome.fast else "full"
    lines = [
        f"# {exp.title}",
        "",
        f"- experiment: `{exp.name}` (paper: `{exp.paper}`)",
        f"- mode: {mode}; seed {outcome.seed}"
        + (f"; splits requested: {outcome.n_splits}" if outcome.n_splits else ""),
        f"- run time: {outcome.seconds:.1f} s; metriclab {_version()}; code: {outcome.code}",
        f"- command: `{outcome.command} reproduce {exp.name}"
        + (" --fast" if outcome.fast else "")
        + (f" --splits {outcome.n_splits}" if outcome.n_splits else "")
        + "`",
        "",
    ]
    if exp.description:
        lines += [exp.description.strip(), ""]
    if outcome.error is not None:
        lines += ["**The run failed:**", "", "```", outcome.error.strip(), "```", ""]
        return "\n".join(lines)
    frame = outcome.results
    header = [
        "setting",
        "method",
        "metric",
        "paper",
        "ours (mean ± std)",
        "ours − paper",
        "splits",
        "protocol",
    ]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    notes: list[str] = []
    protocols: list[str] = []
    for row in frame.itertuples(index=False):
        paper, mean, std = _float(row.paper), _float(row.ours_mean), _float(row.ours_std)
        shown = mean if math.isfinite(mean) else paper
        d = decimals_for(shown) if math.isfinite(shown) else None
        ours = format_number(mean, d)
        if math.isfinite(std):
            ours += f" ± {format_number(std, d)}"
        difference = mean - paper  # NaN when either is missing
        diff = ("+" if difference > 0 else "") + format_number(difference, d)
        protocol = str(row.protocol)
        if len(protocol) > LONG_PROTOCOL:
            if protocol not in protocols:
                protocols.append(protocol)
            protocol = f"P{protocols.index(protocol) + 1}"
        cells = [
            row.setting,
            row.method,
            row.metric,
            format_number(paper),
            ours,
            diff,
            _int_text(row.n_splits),
            protocol,
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        note = str(row.note).strip() if isinstance(row.note, str) else ""
        if note and note not in notes:
            notes.append(note)
    lines.append("")
    if protocols:
        lines += ["## Protocols", ""]
        lines += [f"- P{i}: {text}" for i, text in enumerate(protocols, start=1)] + [""]
    if notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
    return "\n".join(lines)


def _float(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _int_text(value) -> str:
    v = _float(value)
    return str(int(v)) if math.isfinite(v) else "—"


def _version() -> str:
    from metriclab import __version__

    return __version__


def write_outcome(outcome: Outcome, out_dir: str | Path) -> tuple[Path, ...]:
    """Write `<out>/<name>.md` and (when the run succeeded) `<out>/<name>.csv`, and the per-split
    values, where the experiment gives them, to `<out>/splits/<name>.csv.gz`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md = out / f"{outcome.experiment.name}.md"
    md.write_text(markdown_report(outcome), encoding="utf-8")
    files = [md]
    if outcome.results is not None:
        csv = out / f"{outcome.experiment.name}.csv"
        outcome.results.to_csv(csv, index=False)
        files.append(csv)
    if outcome.splits is not None:
        (out / "splits").mkdir(exist_ok=True)
        csv = out / "splits" / f"{outcome.experiment.name}.csv.gz"
        # mtime 0: the same values give the same bytes (no churn in git)
        outcome.splits.to_csv(csv, index=False, compression={"method": "gzip", "mtime": 0})
        files.append(csv)
    outcome.files = tuple(files)
    return outcome.files


def select(names: list[str] | tuple[str, ...] | str) -> list[Experiment]:
    """Experiments by name; 'all' (or an empty list) means every one; unknown names raise ValueError."""
    known = experiments()
    if isinstance(names, str):
        names = [names]
    names = list(names)
    if not names or names == ["all"]:
        return list(known.values())
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(
            f"unknown experiment(s) {unknown}; known: {', '.join(known) or 'none yet'}"
        )
    return [known[n] for n in names]


def _checked_splits(n_splits) -> int | None:
    """None (each experiment's own) or a whole number >= 1: 0 or -1 is refused, not taken as
    the default or passed into an experiment."""
    from metriclab.validation import whole_number

    if n_splits is None:
        return None
    number = whole_number("n_splits", n_splits)
    if number < 1:
        raise ValueError(f"n_splits must be a whole number >= 1, got {n_splits!r}")
    return number


def _prepared_out_dir(out_dir) -> Path | None:
    """The output folder, created before any experiment runs: a folder that cannot be made is
    one ValueError naming it, not a traceback after the runs."""
    if out_dir is None:
        return None
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot write the tables to {out}: {exc.strerror or exc}") from None
    return out


def _run_and_write(exp, fast, n_splits, seed, out_dir, progress, n_jobs, scheduler, cache, command):
    from metriclab.evaluation import run_defaults

    with run_defaults(n_jobs=n_jobs, scheduler=scheduler, cache=cache):
        outcome = run_experiment(exp, fast=fast, n_splits=n_splits, seed=seed, progress=progress)
    outcome.command = command
    if out_dir is not None:
        write_outcome(outcome, out_dir)
    return outcome


def reproduce(
    names="all",
    *,
    out_dir: str | Path | None = None,
    fast: bool = False,
    n_splits: int | None = None,
    seed: int = 0,
    n_jobs: int = 1,
    scheduler=None,
    cache=None,
    progress: Callable | None = None,
    command: str = "python -m metriclab",
) -> list[Outcome]:
    """Run experiments, write their tables, and return their outcomes.

    What ``metriclab reproduce`` runs. With n_jobs > 1 and several experiments (and no
    scheduler), the experiments run side by side in joblib workers and `progress` counts
    finished experiments. Otherwise they run one after the other, `progress` receives each
    experiment's own steps, and n_jobs, scheduler and cache become the defaults of the
    :func:`metriclab.evaluation.compare` calls inside.

    Parameters
    ----------
    names : str or list of str, default="all"
        Experiment names, a paper's prefix ("tdl", "zhang", "kpca", "tangent") or "all".
    out_dir : str or pathlib.Path, optional
        Where ``<name>.md`` (the table: paper, ours mean ± std, difference, protocol, notes) and
        ``<name>.csv`` are written; None: nothing is written.
    fast : bool, default=False
        Smaller runs for a quick look.
    n_splits : int, optional
        Splits per setting; None: each experiment's own.
    seed : int, default=0
        The seed of the splits.
    n_jobs : int, default=1
        joblib workers (-1: all cores; 0 is refused).
    scheduler : str or distributed.Client, optional
        A Dask scheduler for the comparisons inside.
    cache : None, bool, str or ResultCache, optional
        The result cache of the comparisons inside.
    progress : callable, optional
        ``progress(done, total, message)``.
    command : str, default="python -m metriclab"
        How the reports' rerun line starts (``metriclab`` when run as the installed script).

    Returns
    -------
    list of Outcome
        One per experiment, in order.

    See Also
    --------
    run_experiment : One experiment, nothing written.
    metriclab.reproduce.verdicts.evaluate_all : The claims' verdicts from the tables.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from metriclab.reproduce import reproduce
    >>> out = Path(tempfile.mkdtemp())
    >>> [outcome] = reproduce(["zhang-iris"], out_dir=out, fast=True, n_splits=2)
    >>> sorted(p.name for p in out.glob("zhang-iris.*"))
    ['zhang-iris.csv', 'zhang-iris.md']
    """
    chosen = select(names)
    n_splits = _checked_splits(n_splits)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int | np.integer) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero whole number (-1 = all cores), got {n_jobs!r}")
    out_dir = _prepared_out_dir(out_dir)
    if n_jobs != 1 and len(chosen) > 1 and scheduler is None:
        from joblib import Parallel, delayed

        outcomes: list[Outcome] = []
        run = Parallel(n_jobs=n_jobs, backend="loky", return_as="generator")
        for outcome in run(
            delayed(_run_and_write)(
                exp, fast, n_splits, seed, out_dir, None, 1, None, cache, command
            )
            for exp in chosen
        ):
            outcomes.append(outcome)
            if progress is not None:
                progress(len(outcomes), len(chosen), f"{outcome.experiment.name} finished")
        return outcomes
    outcomes = []
    for exp in chosen:

        def step(done, total, message, _name=exp.name):
            if progress is not None:
                progress(done, total, f"{_name}: {message}")

        outcomes.append(
            _run_and_write(
                exp, fast, n_splits, seed, out_dir, step, n_jobs, scheduler, cache, command
            )
        )
    return outcomes
