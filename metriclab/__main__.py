"""Command line of metriclab: the `metriclab` script, or `python -m metriclab`.

python -m metriclab --version
python -m metriclab reproduce <name>... | all [--fast] [--splits N] [--out DIR] [--jobs N]
python -m metriclab reproduce --list
python -m metriclab compare --dataset wine --method nca --method lmnn:k=5 --splits 10 --fraction 0.3
    [--preprocess auto|none|standardise|minmax]
python -m metriclab bench <name>... | all        (runs bench/<name>.py)
python -m metriclab data list | build [NAME...]   (build: from a source checkout)
python -m metriclab cache info | clear
python -m metriclab claims [--tables DIR] [--format text|md] [--write [FILE]]
python -m metriclab app [Streamlit options]
python -m metriclab class [--workers N] [--port P] [--hosts HOST:PORT...] [--check]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
BENCH_DIR = REPO_ROOT / "bench"
# The sample_data/ build tool lives in a checkout, beside the package, not inside it.
BUILD_TOOL = REPO_ROOT / "tools" / "build_sample_data.py"
DEFAULT_OUT = Path("reproduction")
MODULE_PROG = "python -m metriclab"


def invoked_as(argv0: str | None = None) -> str:
    """How the user started the command line, for its usage lines and the reports it writes:
    `metriclab` (the installed script) or `python -m metriclab`."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    name = Path(argv0 or "").name.lower()
    for suffix in (".exe", "-script.py"):
        name = name.removesuffix(suffix)
    return "metriclab" if name == "metriclab" else MODULE_PROG


class ProgressBar:
    """A plain-text progress bar on stderr: `progress(done, total, message)`.

    On a terminal the bar is redrawn in place; otherwise (a log file) a line is written each time
    another tenth of the work is done, and at the end.
    """

    def __init__(self, stream=None, width: int = 28, prefix: str = ""):
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.prefix = prefix
        self.start = time.perf_counter()
        self._last_tenth = -1
        self._last_done = 0
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def line(self, done: int, total: int, message: str) -> str:
        total = max(int(total), 1)
        done = min(max(int(done), 0), total)
        filled = round(self.width * done / total)
        bar = "#" * filled + "-" * (self.width - filled)
        elapsed = time.perf_counter() - self.start
        return f"{self.prefix}[{bar}] {done}/{total} {elapsed:5.1f}s {message}"

    def __call__(self, done: int, total: int, message: str = "") -> None:
        if done < self._last_done:  # a new run (the next experiment) starts over
            self.start = time.perf_counter()
            self._last_tenth = -1
        self._last_done = done
        text = self.line(done, total, message)
        finished = done >= total
        if self._tty:
            columns = shutil.get_terminal_size((100, 20)).columns
            self.stream.write("\r" + text[: columns - 1].ljust(columns - 1))
            if finished:
                self.stream.write("\n")
        else:
            tenth = int(10 * done / max(total, 1))
            if tenth == self._last_tenth and not finished:
                return
            self._last_tenth = tenth
            self.stream.write(text + "\n")
        self.stream.flush()


# ----------------------------------------------------------------------------- sub-commands


def cmd_reproduce(args) -> int:
    from metriclab.reproduce import experiments, reproduce

    if args.list:
        found = experiments()
        if not found:
            print("no experiments yet (the paper modules of metriclab/reproduce/ are not there)")
        name_width = max((len(exp.name) for exp in found.values()), default=0)
        paper_width = max((len(exp.paper) for exp in found.values()), default=0)
        for exp in found.values():  # three aligned columns, however long a paper's name
            print(f"{exp.name:{name_width}s}  {exp.paper:{paper_width}s}  {exp.title}")
        return 0
    if not args.names:
        print("error: give experiment names or 'all' (see --list)", file=sys.stderr)
        return 2
    if args.scheduler:
        from metriclab.resources import require

        require("distributed", "dask", "--scheduler (a Dask cluster)")
    out = Path(args.out)
    try:
        outcomes = reproduce(
            args.names,
            out_dir=out,
            fast=args.fast,
            n_splits=args.splits,
            seed=args.seed,
            n_jobs=args.jobs,
            scheduler=args.scheduler,
            cache=None if args.no_cache else True,
            progress=None if args.quiet else ProgressBar(),
            command=args.prog,
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    failed = 0
    for outcome in outcomes:
        name = outcome.experiment.name
        if outcome.error is not None:
            failed += 1
            last = outcome.error.strip().splitlines()[-1]
            print(f"{name}: FAILED after {outcome.seconds:.1f} s: {last}", file=sys.stderr)
        else:
            rows = len(outcome.results)
            print(f"{name}: {rows} rows in {outcome.seconds:.1f} s -> {out / (name + '.md')}")
    return 1 if failed else 0


def cmd_compare(args) -> int:
    import pandas as pd

    from metriclab.evaluation import CompareRequest, compare, summarize
    from metriclab.evaluation.summary import adjusted_p_values

    if args.scheduler:
        from metriclab.resources import require

        require("distributed", "dask", "--scheduler (a Dask cluster)")
    sizes = [v is not None for v in (args.fraction, args.n_train, args.per_class)]
    if sum(sizes) > 1:
        print("error: give at most one of --fraction, --n-train, --per-class", file=sys.stderr)
        return 2
    try:
        request = CompareRequest(
            args.dataset,
            args.method,
            n_splits=args.splits,
            fraction=args.fraction,
            n_train=args.n_train,
            per_class=args.per_class,
            protocol=args.protocol,
            classifier=args.classifier,
            seed=args.seed,
            preprocess=args.preprocess,
        )
        results = compare(
            request,
            progress=None if args.quiet else ProgressBar(),
            n_jobs=args.jobs,
            scheduler=args.scheduler,
            cache=None if args.no_cache else True,
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    summary = summarize(results)
    if args.csv:
        results.to_csv(args.csv, index=False)
    table = pd.DataFrame(
        {
            "dataset": summary["dataset"],
            "method": summary["label"],
            "protocol": summary["protocol"],
            "scaling": summary["preprocess"],
            "accuracy %": [
                f"{100 * m:.2f} ± {100 * s:.2f}"
                for m, s in zip(summary["accuracy_mean"], summary["accuracy_std"], strict=True)
            ],
            "vs euclidean": [f"{100 * d:+.2f}" for d in summary["diff_vs_baseline"]],
            "w/t/l": [
                f"{w}/{t}/{lo}"
                for w, t, lo in zip(
                    summary["wins"], summary["ties"], summary["losses"], strict=True
                )
            ],
            "p": [f"{p:.3g}" for p in summary["p_value"]],
            "q": [f"{q:.3g}" for q in adjusted_p_values(summary["p_value"])],
            "fit s": [f"{t:.3f}" for t in summary["fit_time_s"]],
            "splits": summary["n_splits"],
            "collapsed": summary["collapsed"],
            "status": summary["status"].str.slice(0, 60),
        }
    )
    print(table.to_string(index=False))
    print(
        "p: two-sided Wilcoxon signed-rank test vs the Euclidean input space, one per row; q: the "
        "table's p adjusted together (Benjamini-Hochberg)"
    )
    if summary["collapsed"].any():
        print(
            "collapsed: splits on which the embedding's scored points sit on fewer than a tenth "
            "as many distinct positions (the accuracy there is mostly tie-breaking)"
        )
    cached = int(results["cached"].sum())
    if cached:
        print(f"({cached} of {len(results)} split results came from the cache)", file=sys.stderr)
    # the table's status column is cut to fit; a failed method's reason in full, one line each
    failed = summary[summary["n_failed"] > 0]
    for row in failed.itertuples(index=False):
        runs = row.n_failed + row.n_splits
        where = "every split" if row.n_splits == 0 else f"{row.n_failed} of {runs} splits"
        print(
            f"error: {row.label} on {row.dataset} failed on {where}: {row.status}", file=sys.stderr
        )
    return 1 if len(failed) else 0


def bench_scripts() -> dict[str, Path]:
    """The benchmarks of the checkout's bench/: its scripts (a module with a `__main__` block;
    helpers such as bench/stream_client.py, imported by a benchmark, are not listed)."""
    if not BENCH_DIR.is_dir():
        return {}
    return {
        p.stem: p
        for p in sorted(BENCH_DIR.glob("*.py"))
        if not p.name.startswith("_") and '__name__ == "__main__"' in p.read_text("utf-8")
    }


def _no_bench_dir(prog: str) -> str:
    return (
        "the benchmarks are not part of the installed package: they live in bench/ of a source "
        "checkout of metric-learning-lab (each script times our methods against their peers in "
        f"one process). Clone the repository, run `pip install -e '.[bench]'` there, then "
        f"`{prog} bench --list` from the checkout."
    )


def cmd_bench(args) -> int:
    scripts = bench_scripts()
    if not BENCH_DIR.is_dir():
        if args.list or not args.names:
            print(_no_bench_dir(args.prog))
            return 0
        print(f"error: {_no_bench_dir(args.prog)}", file=sys.stderr)
        return 2
    if args.list or not args.names:
        if not scripts:
            print(f"no benchmark scripts in {BENCH_DIR}")
        for name in scripts:
            print(name)
        return 0
    names = list(scripts) if args.names == ["all"] else [n.removesuffix(".py") for n in args.names]
    unknown = [n for n in names if n not in scripts]
    if unknown:
        known = ", ".join(scripts) or f"none (no benchmark scripts in {BENCH_DIR})"
        print(f"error: unknown benchmark(s) {unknown}; known: {known}", file=sys.stderr)
        return 2
    status = 0
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
    }
    for name in names:
        print(f"== bench/{name}.py", flush=True)
        result = subprocess.run(
            [sys.executable, str(scripts[name]), *args.extra], env=env, cwd=REPO_ROOT
        )
        if result.returncode != 0:
            print(f"bench/{name}.py exited with {result.returncode}", file=sys.stderr)
            status = 1
    return status


def cmd_data(args) -> int:
    if args.action == "list" and args.names:
        print("error: `data list` takes no data set names", file=sys.stderr)
        return 2
    if args.action == "list":
        from metriclab.datasets import entry, names

        for name in names(include_unlisted=True):
            print(f"{name:20s} {entry(name).kind:10s} {entry(name).summary}")
        return 0
    if not BUILD_TOOL.is_file():
        print(
            "error: `data build` rebuilds sample_data/ from a source checkout of metriclab: it runs "
            f"tools/build_sample_data.py, which is not beside this installed package ({BUILD_TOOL} "
            "is missing). The shipped data files need no rebuild; to rebuild them, clone the "
            "repository, run `pip install -e '.[data]'` there and then "
            f"`{args.prog} data build`.",
            file=sys.stderr,
        )
        return 2
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
    }
    command = [sys.executable, str(BUILD_TOOL), *args.names]
    return subprocess.run(command, env=env, cwd=REPO_ROOT).returncode


def cmd_cache(args) -> int:
    from metriclab.cache_command import run  # the result cache and the full-size array store

    return run(args)


def cmd_class(args) -> int:
    """`metriclab class --workers 2`: metriclab.deploy's command line (the class's processes
    behind HAProxy, from a checkout or an installed wheel)."""
    from metriclab import deploy, resources

    resources.require("streamlit", "app", "the app")
    return deploy.main([a for a in args.deploy_args if a != "--"], prog=f"{args.prog} class")


def cmd_app(args) -> int:
    """Serve the app from the installed package: `streamlit run` on metriclab/ui/app.py with the
    project's Streamlit configuration (usage statistics off, no Deploy button; from any folder)
    and the given Streamlit options (e.g. --server.port 8600), which take precedence."""
    from metriclab import resources

    resources.require("streamlit", "app", "the app")
    script = resources.PACKAGE / "ui" / "app.py"
    options = [a for a in args.streamlit_args if a != "--"]
    project = resources.streamlit_options(options)
    return _run_until_stopped(
        # `streamlit run` through metriclab.ui.shared.serve: no external IP lookup at start
        [sys.executable, "-m", "metriclab.ui.shared.serve", "run", str(script), *project, *options]
    )


def _run_until_stopped(command: list[str]) -> int:
    """`command`'s exit status. A SIGTERM to this process stops it too: a test, CI or a service
    manager stopping `metriclab app` would otherwise leave its Streamlit server running. (Ctrl-C
    reaches both: a terminal signals the whole process group.)"""
    process = subprocess.Popen(command)
    previous = signal.signal(signal.SIGTERM, lambda *_: process.terminate())
    try:
        while True:
            try:
                return process.wait()
            except KeyboardInterrupt:  # the server got it too and is shutting down
                continue
    finally:
        signal.signal(signal.SIGTERM, previous)


def _markdown_to_plain(text: str) -> str:
    """A cell of the claims table as plain text: no emphasis marks, a link as its text."""
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", str(text))
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text)
    return re.sub(r"(?<![\w*])\*(\S(?:.*?\S)?)\*(?![\w*])", r"\1", text)


def claims_text(results, width: int | None = None) -> str:
    """The claims table for a terminal: one block per claim under its paper, the verdict in a
    column on the left, the claim in the paper's words, then the paper's number, ours and why,
    wrapped to the terminal's width."""
    import textwrap

    from metriclab.reproduce import verdicts

    width = width or min(max(shutil.get_terminal_size((100, 24)).columns, 60), 120)
    word_width = max(len(v.word) for v in results) + 2 if results else 10
    indent = " " * word_width
    lines: list[str] = []
    paper = None
    for v in results:
        claim = v.claim
        if claim["paper"] != paper:
            paper = claim["paper"]
            title = verdicts.PAPERS.get(paper, paper)
            lines += ["", title, "=" * len(title)]
        tables = claim.get("tables") or ([claim["table"]] if claim.get("table") else [])
        head = f'{claim["where"]}: "{claim["quote"]}"' + (
            f" (tables: {', '.join(tables)})" if tables else ""
        )
        wrapped = textwrap.wrap(_markdown_to_plain(head), width - word_width) or [""]
        lines.append("")
        lines.append(v.word.ljust(word_width) + wrapped[0])
        lines += [indent + rest for rest in wrapped[1:]]
        others = [f"{r}: {w}" for r, w in list(v.readings.items())[1:]]
        fields = [("other readings", "; ".join(others))] if others else []
        fields += [("paper", v.paper), ("ours", v.ours), ("why", claim.get("why", ""))]
        for label, value in fields:
            value = _markdown_to_plain(value).strip()
            if value:
                lines += textwrap.wrap(
                    value,
                    width,
                    initial_indent=f"{indent}{label}: ",
                    subsequent_indent=indent + "  ",
                )
    return "\n".join(lines).lstrip("\n")


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


def _claims_target(args, tables: Path, default_tables: bool) -> Path | str:
    """Where `claims --write` writes, or the reason it refuses (a str)."""
    from metriclab import resources

    if isinstance(args.write, str) and args.write:
        target = Path(args.write)
    elif not default_tables:
        target = tables / "README.md"  # the user's own run: its folder's README.md
    elif resources.in_checkout():
        target = tables / "README.md"  # the checkout's docs/reproduction/README.md
    else:
        return (
            "the committed claims table is part of the installed package and is not rewritten "
            f"there; write it to a file of yours instead: {args.prog} claims --write claims.md "
            f"(or give your own run's tables: {args.prog} claims --tables DIR --write)"
        )
    if _inside(target, resources.PACKAGE):
        return (
            f"{target} is inside the installed metriclab package ({resources.PACKAGE}); "
            "write the claims table to a file outside it, e.g. --write claims.md"
        )
    return target


def cmd_claims(args) -> int:
    """Print the claims table (verdicts by the rule, from the committed tables or from the user's
    own run's folder) or write it into a Markdown file."""
    from metriclab.reproduce import verdicts

    default_tables = not args.tables
    tables = verdicts.DEFAULT_TABLES if default_tables else Path(args.tables)
    if not tables.is_dir():
        print(f"error: --tables {tables}: no such folder", file=sys.stderr)
        return 2
    if not default_tables and not any(tables.glob("*.csv")):  # a wrong folder, not a partial run
        print(
            f"error: --tables {tables} holds no tables (<experiment>.csv); give the --out folder "
            f"of `{args.prog} reproduce ...`",
            file=sys.stderr,
        )
        return 2
    target = _claims_target(args, tables, default_tables) if args.write is not None else None
    if isinstance(target, str):
        print(f"error: {target}", file=sys.stderr)
        return 2
    try:
        # The committed tables answer every claim (strict: a missing row is an error to fix);
        # a user's own run may hold only some tables or rows: those claims are "not run".
        results = verdicts.evaluate_all(tables, strict=default_tables)
    except (KeyError, ValueError) as exc:  # a table the claims cannot read: say which, one line
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    missing = 0
    for i, v in enumerate(results):
        if v.word == verdicts.STALE:  # a table or row the user's run does not hold
            reason = v.ours.removeprefix("cannot be computed: ").replace("no committed table ", "")
            reason = reason.replace(f"{tables}{os.sep}", "")
            results[i] = dataclasses.replace(
                v, word="not run", ours=f"not run / missing in {tables}: {reason}", readings={}
            )
            missing += 1
    source = "the committed tables" if default_tables else f"the tables in {tables}"
    summary = f"{len(results) - missing} claims computed from {source}" + (
        f"; {missing} not run / missing in {tables}" if missing else ""
    )
    block = verdicts.markdown_table(results)
    if target is not None:
        if target.exists():
            text = target.read_text(encoding="utf-8")
            if verdicts.BEGIN not in text:
                print(
                    f"error: {target} exists and has no generated claims table to replace; "
                    "give a new file name",
                    file=sys.stderr,
                )
                return 2
            text = verdicts.replace_block(text, block)
        else:
            text = (
                f"# The papers' claims and their verdicts\n\nComputed from {source} by "
                f"`{args.prog} claims --write`.\n\n{verdicts.RULE_TEXT}\n\n{block}\n"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")
        print(f"claims table written to {target}: {verdicts.counts(results)}")
        return 0
    fmt = args.format
    if fmt == "auto":
        fmt = "text" if sys.stdout.isatty() else "md"
    if fmt == "md":
        print(block)
    else:
        import textwrap

        print(claims_text(results))
        closing = (
            f"{summary}; verdicts by the rule of metriclab.reproduce.verdicts "
            f"(`{args.prog} claims --format md` for Markdown)"
        )
        width = min(max(shutil.get_terminal_size((100, 24)).columns, 60), 120)
        print("\n" + textwrap.fill(closing, width))
    return 0


# ----------------------------------------------------------------------------- parser


def _add_run_options(parser, jobs_help: str, scheduler_help: str) -> None:
    """How a run is computed, not what it computes (`compare`'s run-time keywords): workers, a
    Dask cluster, the result cache and the progress bar."""
    parser.add_argument("--jobs", type=int, default=1, help=jobs_help)
    parser.add_argument("--scheduler", default=None, help=scheduler_help)
    parser.add_argument(
        "--no-cache", action="store_true", help="do not read or write the result cache"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def build_parser(prog: str = MODULE_PROG) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="metriclab: learning distances and embeddings from labels.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        # the usage lines name the command as it was run; the first line names both ways
        epilog="\n".join(
            line.replace(MODULE_PROG, prog, 1) if line.startswith(MODULE_PROG) else line
            for line in __doc__.splitlines()
        ),
    )
    from metriclab.resources import DISTRIBUTION, version

    parser.add_argument(
        "--version",
        action="version",
        version=f"{DISTRIBUTION} {version()}",
        help="print the distribution's name and version (import name: metriclab) and exit",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    rep = sub.add_parser("reproduce", help="reproduce the papers' tables and figures")
    rep.add_argument("names", nargs="*", help="experiment names, or 'all'")
    rep.add_argument("--list", action="store_true", help="list the experiments and exit")
    rep.add_argument("--fast", action="store_true", help="small smoke-test version (seconds)")
    rep.add_argument("--splits", type=int, default=None, help="number of random splits")
    rep.add_argument("--seed", type=int, default=0, help="seed of the splits (default: 0)")
    rep.add_argument(
        "--out", default=str(DEFAULT_OUT), help="output directory (default: %(default)s)"
    )
    _add_run_options(
        rep, "parallel workers (default: 1)", "Dask scheduler address for compare runs"
    )
    rep.set_defaults(func=cmd_reproduce)

    cmp_ = sub.add_parser("compare", help="compare methods on repeated random splits")
    cmp_.add_argument(
        "--dataset",
        action="append",
        required=True,
        help="data set name; a synthetic one may carry parameters: harder_moons:shift=0.5 (repeatable)",
    )
    cmp_.add_argument(
        "--method",
        action="append",
        default=[],
        help="method key with optional parameters, e.g. lmnn:k=5,n_components=2 (repeatable)",
    )
    cmp_.add_argument(
        "--splits",
        type=int,
        default=10,
        help="random splits per data set (5 or fewer: no p below 0.05)",
    )
    cmp_.add_argument("--fraction", type=float, default=None, help="labeled share of each class")
    cmp_.add_argument("--n-train", type=int, default=None, help="number of training points")
    cmp_.add_argument("--per-class", type=int, default=None, help="labeled points per class")
    cmp_.add_argument(
        "--protocol",
        choices=["auto", "transductive", "inductive"],
        default="auto",
        help="auto: each method's own (transductive for TDL and LE, else inductive)",
    )
    cmp_.add_argument("--classifier", default="1nn", help="1nn, knn:K or nearest_mean")
    cmp_.add_argument(
        "--preprocess",
        default="auto",
        help="feature scaling: auto (each data set's default), none, standardise (z-scores) or "
        "minmax ([0, 1] range); fitted on the points each method is fitted on",
    )
    cmp_.add_argument("--seed", type=int, default=0, help="seed of the splits (default: 0)")
    cmp_.add_argument("--csv", default=None, help="also write the per-split rows to this CSV")
    _add_run_options(
        cmp_, "parallel workers (-1 = all cores)", "Dask scheduler address, e.g. tcp://host:8786"
    )
    cmp_.set_defaults(func=cmd_compare)

    ben = sub.add_parser("bench", help="run the benchmarks in bench/ (of a source checkout)")
    ben.add_argument("names", nargs="*", help="benchmark names (bench/<name>.py), or 'all'")
    ben.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    ben.add_argument(
        "--extra", nargs=argparse.REMAINDER, default=[], help="arguments for the scripts"
    )
    ben.set_defaults(func=cmd_bench)

    data = sub.add_parser("data", help="shipped data sets")
    data.add_argument(
        "action",
        choices=["list", "build"],
        help="list: every name load() takes; build: rebuild sample_data/ (a source checkout)",
    )
    data.add_argument("names", nargs="*", help="build: the data sets to rebuild (default: all)")
    data.set_defaults(func=cmd_data)

    app = sub.add_parser(
        "app",
        help="serve the app (Streamlit options pass through, e.g. --server.port 8600)",
        description="Serve the metriclab app from the installed package. Any Streamlit option "
        "passes through: metriclab app --server.port 8600 --server.headless true",
    )
    app.add_argument("streamlit_args", nargs=argparse.REMAINDER, help="Streamlit options")
    app.set_defaults(func=cmd_app)

    cl = sub.add_parser(
        "claims",
        help="the papers' claims with their verdicts (from the committed tables, or your run's)",
    )
    cl.add_argument(
        "--tables",
        default=None,
        help="tables directory: the committed tables (default), or your own run's folder "
        "(reproduce ... --out DIR); a claim whose table or row DIR lacks is 'not run'",
    )
    cl.add_argument(
        "--format",
        choices=["auto", "text", "md"],
        default="auto",
        help="text: a plain-text table; md: Markdown (auto: text on a terminal, else md)",
    )
    cl.add_argument(
        "--write",
        nargs="?",
        const=True,
        default=None,
        metavar="FILE",
        help="write the Markdown table into FILE (its generated block replaced, or a new file); "
        "without FILE: the README.md of --tables DIR, or in a checkout docs/reproduction/README.md",
    )
    cl.set_defaults(func=cmd_claims)

    class_ = sub.add_parser(
        "class",
        help="serve a class: several app processes behind HAProxy (metriclab.deploy's options)",
        add_help=False,  # --help and every option are metriclab.deploy's own
    )
    class_.add_argument("deploy_args", nargs=argparse.REMAINDER, help="metriclab.deploy's options")
    class_.set_defaults(func=cmd_class)

    cache = sub.add_parser("cache", help="the on-disk caches (results, full-size graphs)")
    cache.add_argument(
        "action",
        choices=["info", "clear"],
        help="info: the folders in use and what they hold; clear: empty them",
    )
    cache.set_defaults(func=cmd_cache)
    return parser


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the command line; `prog` (default: how this process was started, see invoked_as) is
    what the usage lines and the written reports call the command."""
    from metriclab.resources import MissingExtra

    prog = prog or invoked_as()
    try:
        parser = build_parser(prog)
        args, unknown = parser.parse_known_args(argv)
        args.prog = prog
        if args.command == "app":  # Streamlit's own options pass through untouched
            args.streamlit_args = [*unknown, *args.streamlit_args]
        elif args.command == "class":  # as are metriclab.deploy's
            args.deploy_args = [*unknown, *args.deploy_args]
        elif unknown:
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        try:
            code = args.func(args)
        except MissingExtra as exc:  # one line naming the extra, never a traceback
            print(f"error: {exc}", file=sys.stderr)
            return 2
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return code
    except BrokenPipeError:  # `metriclab claims | head`: the reader has what it wanted
        _discard_stdout()
        return 1


def _discard_stdout() -> None:
    """Point stdout at /dev/null after a broken pipe, so that Python's flush at exit does not
    print a second BrokenPipeError (the recipe of Python's signal module documentation)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # stdout without a file descriptor (tests)
        pass


if __name__ == "__main__":
    sys.exit(main())
