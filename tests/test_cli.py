"""`python -m metriclab ...` run in-process through main([...])."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import metriclab.reproduce as reproduce_module
from metriclab import resources
from metriclab.__main__ import ProgressBar, invoked_as, main
from metriclab.reproduce import (
    RESULT_COLUMNS,
    Experiment,
    markdown_report,
    run_experiment,
    verdicts,
)


def _table(fast, n_splits, seed, progress):
    n = n_splits or (2 if fast else 5)
    for i in range(n):
        if progress is not None:
            progress(i + 1, n, f"split {i + 1}")
    return pd.DataFrame(
        [
            ["wine", "TDL", "1-NN error %", 4.5, 5.25, 1.5, n, "10% labeled", "ours uses k=5"],
            ["iris | UCI", "LE", "1-NN error %", float("nan"), 7.0, float("nan"), n, "all", ""],
        ],
        columns=list(RESULT_COLUMNS),
    )


def _broken(fast, n_splits, seed, progress):
    raise ValueError("data set 'nope' is not shipped")


FAKE = {
    "fake-table": Experiment("fake-table", "A fake table", "fakepaper", _table, "Two rows."),
    "fake-broken": Experiment("fake-broken", "A broken table", "fakepaper", _broken),
}


@pytest.fixture
def fake_experiments(monkeypatch):
    monkeypatch.setattr(reproduce_module, "experiments", lambda: dict(FAKE))


def test_reproduce_list(fake_experiments, capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert "fake-table" in out and "A broken table" in out


def test_reproduce_writes_markdown_and_csv(fake_experiments, tmp_path, capsys):
    code = main(["reproduce", "fake-table", "--fast", "--out", str(tmp_path), "--splits", "3"])
    assert code == 0
    md = (tmp_path / "fake-table.md").read_text()
    assert "| wine | TDL | 1-NN error % | 4.50 | 5.25 ± 1.50 | +0.75 | 3 | 10% labeled |" in md
    assert r"| iris \| UCI | LE | 1-NN error % | — | 7.00 | — | 3 | all |" in md
    assert "## Notes" in md and "- ours uses k=5" in md
    assert "fast (smoke-test sizes, NOT the full protocol)" in md
    csv = pd.read_csv(tmp_path / "fake-table.csv")
    assert list(csv.columns) == list(RESULT_COLUMNS)
    assert csv["ours_mean"].tolist() == [5.25, 7.0]
    captured = capsys.readouterr()
    assert "fake-table: 2 rows" in captured.out
    assert "[" in captured.err and "3/3" in captured.err  # progress bar on stderr


def test_reproduce_all_goes_on_after_a_failure(fake_experiments, tmp_path, capsys):
    assert main(["reproduce", "all", "--fast", "--out", str(tmp_path), "--quiet"]) == 1
    assert (tmp_path / "fake-table.csv").exists()
    broken = (tmp_path / "fake-broken.md").read_text()
    assert "The run failed" in broken and "not shipped" in broken
    assert not (tmp_path / "fake-broken.csv").exists()
    assert "fake-broken: FAILED" in capsys.readouterr().err
    assert main(["reproduce", "nope", "--out", str(tmp_path)]) == 2
    assert main(["reproduce", "--out", str(tmp_path)]) == 2


def test_reproduce_refuses_a_bad_run_option_in_one_line(fake_experiments, tmp_path, capsys):
    """--splits 0 was taken as the experiment's own count, --splits -1 and --jobs 0 reached the
    experiment, and an --out folder that cannot be made gave a traceback after the runs."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    cases = {
        ("--splits", "0"): "n_splits must be a whole number >= 1, got 0",
        ("--splits", "-1"): "n_splits must be a whole number >= 1, got -1",
        ("--jobs", "0"): "n_jobs must be a non-zero whole number (-1 = all cores), got 0",
        ("--out", str(blocker / "tables")): f"cannot write the tables to {blocker / 'tables'}",
    }
    for option, message in cases.items():
        argv = ["reproduce", "fake-table", "--quiet", "--out", str(tmp_path / "out"), *option]
        assert main(argv) == 2, option
        captured = capsys.readouterr()
        assert captured.err.startswith(f"error: {message}"), captured.err
        assert len(captured.err.splitlines()) == 1 and not captured.out
    assert not (tmp_path / "out").exists()  # refused before anything ran or was written


def test_markdown_of_a_full_run_is_not_labelled_fast():
    outcome = run_experiment(FAKE["fake-table"], fast=False, n_splits=None, seed=0)
    assert outcome.error is None and len(outcome.results) == 2
    text = markdown_report(outcome)
    assert "mode: full" in text and "| 5 |" in text


def test_compare_prints_the_summary(capsys):
    code = main(
        [
            "compare",
            "--dataset",
            "two_moons",
            "--method",
            "pca:n_components=1",
            "--method",
            "pca:n_components=0",
            "--splits",
            "3",
            "--fraction",
            "0.2",
            "--no-cache",
        ]
    )
    assert code == 1  # a method that failed: the table is printed, the status says so
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert "Euclidean (input space)" in lines[1] and "+0.00" in lines[1] and "0/3/0" in lines[1]
    assert "PCA (n_components=1)" in lines[2]
    assert "n_components must be >= 1, got 0" in lines[3]
    assert (
        "error: PCA (n_components=0) on two_moons failed on every split: "
        "n_components must be >= 1, got 0\n" in captured.err
    )
    assert "6/9" in captured.err  # progress bar
    assert main(["compare", "--dataset", "no_such_set", "--no-cache"]) == 2
    assert "unknown data set" in capsys.readouterr().err


def test_compare_gives_a_failed_methods_reason_in_full(capsys):
    """The table cuts its status column at 60 characters; the reason (here the list of the
    parameters NCA knows) is on stderr in full, and the exit status is not 0."""
    argv = ["compare", "--dataset", "iris", "--method", "nca:k=5", "--splits", "2"]
    assert main([*argv, "--no-cache", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "error: NCA on iris failed on every split: NCA has no parameter(s) ['k']; "
        "known: ['init', 'max_iter', 'n_components']"
    ]


def test_compare_uses_the_cache(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("METRICLAB_CACHE", str(tmp_path))
    args = ["compare", "--dataset", "two_moons", "--splits", "2", "--n-train", "20", "--quiet"]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    captured = capsys.readouterr()
    assert captured.out == first  # same numbers, fit times included (they are cached too)
    assert "2 of 2 split results came from the cache" in captured.err
    assert main(["cache", "info"]) == 0
    assert "2 cached results" in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0
    assert "removed 2" in capsys.readouterr().out


def test_bench_runs_scripts(monkeypatch, tmp_path, capfd):
    import metriclab.__main__ as cli

    main_block = 'if __name__ == "__main__":\n    '
    (tmp_path / "fine.py").write_text(main_block + "print('ratio 2.0')\n")
    (tmp_path / "broken.py").write_text(main_block + "raise SystemExit(3)\n")
    monkeypatch.setattr(cli, "BENCH_DIR", tmp_path)
    assert main(["bench", "--list"]) == 0
    assert main(["bench", "fine"]) == 0
    assert "ratio 2.0" in capfd.readouterr().out
    assert main(["bench", "all"]) == 1
    assert main(["bench", "missing"]) == 2


def test_data_list(capsys):
    assert main(["data", "list"]) == 0
    assert "two_moons" in capsys.readouterr().out


def test_progress_bar_text():
    stream = io.StringIO()
    bar = ProgressBar(stream=stream, width=10)
    for i in range(1, 21):
        bar(i, 20, f"step {i}")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 11  # not a terminal: a line at each tenth (0/10 .. 10/10)
    assert lines[-1].startswith("[##########] 20/20") and lines[-1].endswith("step 20")
    assert bar.line(5, 10, "").startswith("[#####-----] 5/10")


# ---- issue 38, item 5: the command line as the installed `metriclab` script -----------------

ROOT = Path(__file__).resolve().parents[1]


def test_the_program_is_named_as_it_was_invoked(capsys):
    assert invoked_as("/venv/bin/metriclab") == "metriclab"
    assert invoked_as("/venv/Scripts/metriclab.exe") == "metriclab"
    assert invoked_as(str(ROOT / "metriclab" / "__main__.py")) == "python -m metriclab"
    with pytest.raises(SystemExit):
        main(["--help"], prog="metriclab")
    out = capsys.readouterr().out
    assert out.startswith("usage: metriclab [-h] [--version]")
    assert "\nmetriclab reproduce <name>" in out and "\npython -m metriclab" not in out
    # the first line of the text names both ways to run it (it read "... script, or `metriclab`")
    assert "the `metriclab` script, or `python -m metriclab`." in out
    with pytest.raises(SystemExit):
        main(["claims", "--help"], prog="python -m metriclab")
    assert capsys.readouterr().out.startswith("usage: python -m metriclab claims")


def test_usage_of_a_real_process_follows_argv0():
    """As the console script runs it (argv[0] is .../bin/metriclab) and as `python -m`."""
    script = (
        "import sys; sys.argv[0] = '/somewhere/bin/metriclab'; "
        "from metriclab.__main__ import main; sys.exit(main(['claims', '--help']))"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert run.stdout.startswith("usage: metriclab claims"), run.stdout + run.stderr
    run = subprocess.run(
        [sys.executable, "-m", "metriclab", "bench", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.stdout.startswith("usage: python -m metriclab bench"), run.stdout + run.stderr


def test_reports_name_the_command_that_wrote_them(fake_experiments, tmp_path, capsys):
    args = ["reproduce", "fake-table", "--fast", "--out", str(tmp_path), "--quiet"]
    assert main(args, prog="metriclab") == 0
    md = (tmp_path / "fake-table.md").read_text()
    assert "- command: `metriclab reproduce fake-table --fast`" in md
    assert main(args, prog="python -m metriclab") == 0
    md = (tmp_path / "fake-table.md").read_text()
    assert "- command: `python -m metriclab reproduce fake-table --fast`" in md


def test_claims_refuses_a_folder_without_tables(tmp_path, capsys):
    """`claims --tables DIR` on a folder with no table at all (a typo, the wrong folder) printed
    every claim as "not run" and exited 0; a partial run is still accepted (test below)."""
    assert main(["claims", "--tables", str(tmp_path)], prog="metriclab") == 2
    captured = capsys.readouterr()
    assert captured.err == (
        f"error: --tables {tmp_path} holds no tables (<experiment>.csv); give the --out folder "
        "of `metriclab reproduce ...`\n"
    )
    assert not captured.out


def _partial_run(tmp_path: Path) -> Path:
    """A user's own run: two of the committed tables, one of them without a row a claim needs."""
    run = tmp_path / "run"
    (run / "splits").mkdir(parents=True)
    for name in ("tdl-moons",):
        shutil.copy(verdicts.DEFAULT_TABLES / f"{name}.csv", run / f"{name}.csv")
        shutil.copy(
            verdicts.DEFAULT_TABLES / "splits" / f"{name}.csv.gz", run / "splits" / f"{name}.csv.gz"
        )
    curves = pd.read_csv(verdicts.DEFAULT_TABLES / "kpca-curves.csv")
    dropped = (curves.setting == "curves_circles") & (curves.method == "LMNN (k=3)")
    assert dropped.any()
    curves[~dropped].to_csv(run / "kpca-curves.csv", index=False)
    return run


def test_claims_accepts_a_users_own_run(tmp_path, capsys):
    """A claim whose table or row the folder lacks is 'not run / missing in DIR'; the others are
    computed from the folder (before: `error: no committed table ...` and nothing else)."""
    run = _partial_run(tmp_path)
    assert main(["claims", "--tables", str(run), "--format", "md"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == len(verdicts.claims())
    moons = [r for r in rows if "tdl-moons" in r]
    assert moons and all("not run" not in r for r in moons)
    missing = [r for r in rows if "not run / missing in" in r]
    assert f"not run / missing in {run}: tdl-uci.csv" in out
    assert "no row ('curves_circles', 'LMNN (k=3)')" in out
    # the rows that read no table (not run, checked by tests or by bench/) keep their own verdict
    stated = sum(
        v.word in ("not run", "yes (tests)", "yes (bench)") for v in verdicts.evaluate_all()
    )
    # kpca-fig2's kernel clause reads kpca-curves without the dropped (linear LMNN) row
    kernel_clause = [r for r in rows if "kernel versions of the three" in r]
    assert kernel_clause and "not run" not in kernel_clause[0]
    assert len(missing) == len(rows) - len(moons) - stated - len(kernel_clause)
    assert "table stale" not in out


def test_claims_prints_plain_text_to_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["claims"]) == 0
    out = capsys.readouterr().out
    assert "**" not in out and "|---" not in out and "<!--" not in out
    assert "*symmetric*" not in out and "symmetric (partly)" in out  # a reading, unstarred
    assert "Li, Yang & Wang (2007)\n======" in out
    assert f"{len(verdicts.claims())} claims computed from the committed tables" in out.replace(
        "\n", " "
    )
    width = max(len(line) for line in out.splitlines()[:-1])
    assert width <= 120
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    assert main(["claims"]) == 0  # into a pipe or a file: Markdown
    assert capsys.readouterr().out.startswith(verdicts.BEGIN)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["claims", "--format", "md"]) == 0
    assert "| claim (paper's words) |" in capsys.readouterr().out


def test_claims_write_never_writes_into_the_installed_package(monkeypatch, tmp_path, capsys):
    readme = verdicts.DEFAULT_TABLES / "README.md"
    before = readme.read_bytes()
    monkeypatch.setattr(resources, "in_checkout", lambda: False)  # as from an installed wheel
    assert main(["claims", "--write"], prog="metriclab") == 2
    err = capsys.readouterr().err
    assert "installed package" in err and "metriclab claims --write claims.md" in err
    inside = resources.PACKAGE / "claims.md"
    assert main(["claims", "--write", str(inside)]) == 2
    assert "inside the installed metriclab package" in capsys.readouterr().err
    assert not inside.exists() and readme.read_bytes() == before
    # a file the user names: a new Markdown file with the rule and the table
    target = tmp_path / "mine" / "claims.md"
    assert main(["claims", "--write", str(target)]) == 0
    text = target.read_text()
    assert text.startswith("# The papers' claims") and verdicts.RULE_TEXT in text
    assert verdicts.markdown_table(verdicts.evaluate_all()) in text
    assert f"claims table written to {target}" in capsys.readouterr().out
    # its own run's folder: that folder's README.md
    run = _partial_run(tmp_path)
    assert main(["claims", "--tables", str(run), "--write"]) == 0
    assert "not run / missing in" in (run / "README.md").read_text()
    # an existing file of the user's without the generated block is not overwritten
    other = tmp_path / "notes.md"
    other.write_text("my notes\n")
    assert main(["claims", "--write", str(other)]) == 2
    assert other.read_text() == "my notes\n"


def test_bench_from_an_installed_package_points_to_the_checkout(monkeypatch, tmp_path, capsys):
    import metriclab.__main__ as cli

    monkeypatch.setattr(cli, "BENCH_DIR", tmp_path / "no-bench-here")
    assert main(["bench", "--list"], prog="metriclab") == 0
    out = capsys.readouterr().out
    assert "not part of the installed package" in out and "bench/ of a source checkout" in out
    assert main(["bench", "knn"], prog="metriclab") == 2
    err = capsys.readouterr().err
    assert "bench/ of a source checkout" in err and "known:" not in err


def test_bench_lists_the_checkouts_benchmarks_not_their_helpers(capsys):
    assert main(["bench", "--list"]) == 0
    listed = capsys.readouterr().out.split()
    assert "spectral" in listed and "mahalanobis" in listed
    assert "stream_client" not in listed  # imported by app_load.py, not a benchmark
    assert main(["bench", "knn"]) == 2
    err = capsys.readouterr().err
    assert "known: app_fullsize," in err and "stream_client" not in err


@pytest.mark.parametrize("command", [["claims"], ["data", "list"], ["reproduce", "--list"]])
def test_output_into_a_closed_pipe_is_no_traceback(command):
    """`metriclab claims | head`: the reader closes the pipe; the command stops quietly (no
    BrokenPipeError traceback, here or at the interpreter's exit)."""
    import os

    read, write = os.pipe()
    os.close(read)  # a reader that has already gone: every write fails
    try:
        run = subprocess.run(
            [sys.executable, "-m", "metriclab", *command],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
    finally:
        os.close(write)
    assert run.returncode == 1
    assert run.stderr == "", run.stderr


def test_every_subcommand_and_option_says_what_it_does(capsys):
    """`metriclab <command> --help` gives each option and argument a line of its own (--seed,
    --protocol, bench --list, data's and cache's actions, class --first-worker-port had none), and
    no issue number of the project's tracker reaches a user's help text (class said "issue 41")."""
    import argparse
    import re

    from metriclab import deploy
    from metriclab.__main__ import build_parser

    parser = build_parser("metriclab")
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    helped = {c.dest: c.help for c in commands._choices_actions}
    assert set(helped) == set(commands.choices) and all(helped.values()), helped
    # `class` hands every option to metriclab.deploy's own parser
    parsers = {"metriclab": parser, **commands.choices}
    del parsers["class"]
    missing = [
        f"{name} {action.dest}"
        for name, sub in parsers.items()
        for action in sub._actions
        if not isinstance(action, argparse._SubParsersAction) and not action.help
    ]
    with pytest.raises(SystemExit):
        deploy.main(["--help"], prog="metriclab class")
    class_help = capsys.readouterr().out
    lines = class_help.splitlines()
    missing += [  # an option alone on its line, with no help text wrapped under it
        f"class {line.strip()}"
        for line, after in zip(lines, [*lines[1:], ""], strict=True)
        if re.match(r"^  --[\w-]+( [A-Z_]+)?$", line) and not after.startswith(" " * 8)
    ]
    assert missing == []
    texts = [sub.format_help() for sub in parsers.values()] + [class_help]
    assert not [t for t in texts if re.search(r"\bissue \d", t)]


def test_compare_prints_q_the_tables_p_adjusted_together(capsys):
    from scipy.stats import false_discovery_control

    from metriclab.__main__ import main

    argv = ["compare", "--dataset", "iris", "--dataset", "wine", "--method", "nca", "--method",
            "pca", "--splits", "6", "--quiet", "--no-cache"]  # fmt: skip
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split()
    rows = [line.split() for line in lines[1:] if line.split()[:1] in (["iris"], ["wine"])]
    tested = [r for r in rows if "Euclidean" not in r]  # the baseline's own row has no test
    p = [float(r[-6]) for r in tested]  # ... p q fit splits collapsed status
    q = [float(r[-5]) for r in tested]
    assert header[-7:-5] == ["p", "q"] and len(p) == 4  # ("fit s" is two words)
    assert q == [float(f"{v:.3g}") for v in false_discovery_control(p)]
    assert any(line.startswith("p: two-sided Wilcoxon") for line in lines)
