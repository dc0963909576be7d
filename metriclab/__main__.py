"""Command line of metriclab.

python -m metriclab reproduce <name>... | all [--fast] [--splits N] [--out DIR] [--jobs N]
python -m metriclab reproduce --list
python -m metriclab compare --dataset wine --method nca --method lmnn:k=5 --splits 10 --fraction 0.3
    [--preprocess auto|none|standardise|minmax]
python -m metriclab bench <name>... | all        (runs bench/<name>.py)
python -m metriclab data list | build [NAME...]   (build: from a source checkout)
python -m metriclab cache info | clear
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
BENCH_DIR = REPO_ROOT / "bench"
# The sample_data/ build tool lives in a checkout, beside the package, not inside it.
BUILD_TOOL = REPO_ROOT / "tools" / "build_sample_data.py"
DEFAULT_OUT = Path("reproduction")


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
        for exp in found.values():
            print(f"{exp.name:24s} {exp.paper:12s} {exp.title}")
        return 0
    if not args.names:
        print("give experiment names or 'all' (see --list)", file=sys.stderr)
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

    from metriclab.evaluation import compare, summarize

    if args.scheduler:
        from metriclab.resources import require

        require("distributed", "dask", "--scheduler (a Dask cluster)")
    sizes = [v is not None for v in (args.fraction, args.n_train, args.per_class)]
    if sum(sizes) > 1:
        print("error: give at most one of --fraction, --n-train, --per-class", file=sys.stderr)
        return 2
    try:
        results = compare(
            args.dataset,
            args.method,
            n_splits=args.splits,
            fraction=args.fraction,
            n_train=args.n_train,
            per_class=args.per_class,
            protocol=args.protocol,
            classifier=args.classifier,
            n_jobs=args.jobs,
            scheduler=args.scheduler,
            seed=args.seed,
            progress=None if args.quiet else ProgressBar(),
            cache=None if args.no_cache else True,
            preprocess=args.preprocess,
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
            "fit s": [f"{t:.3f}" for t in summary["fit_time_s"]],
            "splits": summary["n_splits"],
            "status": summary["status"].str.slice(0, 60),
        }
    )
    print(table.to_string(index=False))
    cached = int(results["cached"].sum())
    if cached:
        print(f"({cached} of {len(results)} split results came from the cache)", file=sys.stderr)
    return 0


def bench_scripts() -> dict[str, Path]:
    if not BENCH_DIR.is_dir():
        return {}
    return {p.stem: p for p in sorted(BENCH_DIR.glob("*.py")) if not p.name.startswith("_")}


def cmd_bench(args) -> int:
    scripts = bench_scripts()
    if args.list or not args.names:
        if not scripts:
            print("no benchmarks in bench/ yet")
        for name in scripts:
            print(name)
        return 0
    names = list(scripts) if args.names == ["all"] else [n.removesuffix(".py") for n in args.names]
    unknown = [n for n in names if n not in scripts]
    if unknown:
        print(
            f"error: unknown benchmark(s) {unknown}; known: {', '.join(scripts)}", file=sys.stderr
        )
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
        print("`data list` takes no data set names", file=sys.stderr)
        return 2
    if args.action == "list":
        from metriclab.datasets import entry, names

        for name in names(include_unlisted=True):
            print(f"{name:20s} {entry(name).kind:10s} {entry(name).summary}")
        return 0
    if not BUILD_TOOL.is_file():
        print(
            "`data build` rebuilds sample_data/ from a source checkout of metriclab: it runs "
            f"tools/build_sample_data.py, which is not beside this installed package ({BUILD_TOOL} "
            "is missing). The shipped data files need no rebuild; to rebuild them, clone the "
            "repository, run `pip install -e '.[data]'` there and then `python -m metriclab data "
            "build`.",
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


def cmd_app(args) -> int:
    """Serve the app from the installed package: `streamlit run` on metriclab/ui/app.py with the
    given Streamlit options (e.g. --server.port 8600 --server.headless true)."""
    from metriclab import resources

    resources.require("streamlit", "app", "the app")
    script = resources.PACKAGE / "ui" / "app.py"
    options = [a for a in args.streamlit_args if a != "--"]
    return subprocess.call([sys.executable, "-m", "streamlit", "run", str(script), *options])


def cmd_claims(args) -> int:
    """Print the claims table (verdicts by the rule, from the committed tables) or write it into
    docs/reproduction/README.md."""
    from metriclab.reproduce import verdicts

    tables = Path(args.tables) if args.tables else verdicts.DEFAULT_TABLES
    try:
        results = verdicts.evaluate_all(tables)
    except (KeyError, ValueError) as exc:  # a table the claims cannot read: say which, one line
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    block = verdicts.markdown_table(results)
    if args.write:
        readme = tables / "README.md"
        readme.write_text(
            verdicts.replace_block(readme.read_text(encoding="utf-8"), block), "utf-8"
        )
        print(f"claims table written to {readme}: {verdicts.counts(results)}")
    else:
        print(block)
    return 0


# ----------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m metriclab",
        description="metriclab: learning distances and embeddings from labels.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    sub = parser.add_subparsers(dest="command", required=True)

    rep = sub.add_parser("reproduce", help="reproduce the papers' tables and figures")
    rep.add_argument("names", nargs="*", help="experiment names, or 'all'")
    rep.add_argument("--list", action="store_true", help="list the experiments and exit")
    rep.add_argument("--fast", action="store_true", help="small smoke-test version (seconds)")
    rep.add_argument("--splits", type=int, default=None, help="number of random splits")
    rep.add_argument("--seed", type=int, default=0)
    rep.add_argument(
        "--out", default=str(DEFAULT_OUT), help="output directory (default: %(default)s)"
    )
    rep.add_argument("--jobs", type=int, default=1, help="parallel workers (default: 1)")
    rep.add_argument("--scheduler", default=None, help="Dask scheduler address for compare runs")
    rep.add_argument(
        "--no-cache", action="store_true", help="do not read or write the result cache"
    )
    rep.add_argument("--quiet", action="store_true", help="no progress bar")
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
    cmp_.add_argument("--splits", type=int, default=5)
    cmp_.add_argument("--fraction", type=float, default=None, help="labeled share of each class")
    cmp_.add_argument("--n-train", type=int, default=None, help="number of training points")
    cmp_.add_argument("--per-class", type=int, default=None, help="labeled points per class")
    cmp_.add_argument("--protocol", choices=["auto", "transductive", "inductive"], default="auto")
    cmp_.add_argument("--classifier", default="1nn", help="1nn, knn:K or nearest_mean")
    cmp_.add_argument(
        "--preprocess",
        default="auto",
        help="feature scaling: auto (each data set's default), none, standardise (z-scores) or "
        "minmax ([0, 1] range); fitted on the points each method is fitted on",
    )
    cmp_.add_argument("--jobs", type=int, default=1, help="parallel workers (-1 = all cores)")
    cmp_.add_argument(
        "--scheduler", default=None, help="Dask scheduler address, e.g. tcp://host:8786"
    )
    cmp_.add_argument("--seed", type=int, default=0)
    cmp_.add_argument("--csv", default=None, help="also write the per-split rows to this CSV")
    cmp_.add_argument(
        "--no-cache", action="store_true", help="do not read or write the result cache"
    )
    cmp_.add_argument("--quiet", action="store_true", help="no progress bar")
    cmp_.set_defaults(func=cmd_compare)

    ben = sub.add_parser("bench", help="run benchmarks in bench/")
    ben.add_argument("names", nargs="*", help="benchmark names (bench/<name>.py), or 'all'")
    ben.add_argument("--list", action="store_true")
    ben.add_argument(
        "--extra", nargs=argparse.REMAINDER, default=[], help="arguments for the scripts"
    )
    ben.set_defaults(func=cmd_bench)

    data = sub.add_parser("data", help="shipped data sets")
    data.add_argument("action", choices=["list", "build"])
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

    cl = sub.add_parser("claims", help="the papers' claims with verdicts from the committed tables")
    cl.add_argument(
        "--tables", default=None, help="tables directory (default: the committed docs/reproduction)"
    )
    cl.add_argument("--write", action="store_true", help="write the table into its README.md")
    cl.set_defaults(func=cmd_claims)

    cache = sub.add_parser("cache", help="the on-disk caches (results, full-size graphs)")
    cache.add_argument("action", choices=["info", "clear"])
    cache.set_defaults(func=cmd_cache)
    return parser


def main(argv: list[str] | None = None) -> int:
    from metriclab.resources import MissingExtra

    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if args.command == "app":  # Streamlit's own options pass through untouched
        args.streamlit_args = [*unknown, *args.streamlit_args]
    elif unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        return args.func(args)
    except MissingExtra as exc:  # one line naming the extra, never a traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
