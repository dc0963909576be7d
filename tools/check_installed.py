"""Check the package as a pip user meets it (issues 25 and 38): build the wheel, install it into a
fresh virtual environment, and from a folder outside the checkout: the distribution's name and
`metriclab --version`, every data set by name (the unlisted ones too), fit methods, the command
line as the installed script (usage lines, `reproduce all --fast` and `claims --tables` on its
output, `claims --write` never into the package, `bench` pointing to the checkout, the cache in
the user's cache folder), the Embed page's downloaded notebook in a Jupyter kernel, then
`metriclab app` headless with no option of ours: in Chromium the pages render, Streamlit's
usage statistics are off, no Deploy button, no request to another host; and the gallery's
examples run (Plotly, no matplotlib); `metriclab class --workers 2` serves through HAProxy
(Debian's haproxy, installed by .ci/run).

    python tools/check_installed.py [--wheel dist/metric_learning_lab-*.whl] [--keep]

Prints the wheel's size and each check; exits non-zero on the first failure. CI runs it
(.ci/run); the browser step needs the system Chromium and Playwright in the running environment.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

INSIDE = r"""
import json, sys
import numpy as np
import metriclab
from metriclab import resources
from metriclab.datasets import load, names
from importlib.metadata import version

assert resources.DISTRIBUTION == "metric-learning-lab"
assert version("metric-learning-lab") == resources.version() == metriclab.__version__
assert not resources.in_checkout(), "the installed package thinks it runs from a checkout"
assert "site-packages" in str(resources.sample_data()), resources.sample_data()
expected = json.loads(sys.argv[1])
found = names(include_unlisted=True)
assert found == expected, f"data sets differ from the checkout's: {set(expected) ^ set(found)}"
assert {"mnist", "breast_cancer_wisconsin_699"} <= set(found)
try:
    load("no_such_set")
except ValueError as exc:
    assert "mnist" in str(exc) and "breast_cancer_wisconsin_699" in str(exc), exc
for name in found:
    ds = load(name)
    assert ds.X.shape[0] == ds.y.shape[0] > 0, name
print(f"  {len(found)} data sets load by name, as in the checkout")

from metriclab import TDL, NeighborhoodComponentsAnalysis
from metriclab.evaluation import labeled_mask, partial_labels
moons = load("two_moons")
y = partial_labels(moons.y, labeled_mask(moons.y, per_class=5, seed=0))
Z = TDL(n_components=2).fit(moons.X, y).embedding_
assert Z.shape == (moons.X.shape[0], 2) and np.isfinite(Z).all()
iris = load("iris")
nca = NeighborhoodComponentsAnalysis(random_state=0).fit(iris.X, iris.y)
assert nca.transform(iris.X).shape == iris.X.shape
print("  TDL on two_moons and NCA on iris fit")

from metriclab.reproduce.verdicts import evaluate_all
words = {v.word for v in evaluate_all()}
print(f"  the claims table evaluates from the packaged tables ({len(evaluate_all())} claims)")
"""


# A downloaded gallery example, run as a script with `fig.show()` counted instead of opening a
# browser; matplotlib must not be needed (it is no dependency of the package).
RUN_EXAMPLE = r"""
import importlib.util, runpy, sys
import plotly.graph_objects as go
assert importlib.util.find_spec("matplotlib") is None, "matplotlib is installed: not a fair check"
shown = []
go.Figure.show = lambda self, *args, **kwargs: shown.append(self)
runpy.run_path(sys.argv[1], run_name="__main__")
assert shown, f"{sys.argv[1]} showed no figure"
"""


# The Embed page's "Download as notebook" (issue 37, item 4), made by the installed package for a
# small view and run by a Jupyter kernel of the installed environment: it must finish, print the
# page's number and leave the coordinates.
RUN_NOTEBOOK = r"""
import nbclient, nbformat
from pathlib import Path
from metriclab.export import notebook_from_code
from metriclab.ui.shared.code_snippets import embed_snippet
from metriclab.ui.shared.fit_request import DataRef, FitRequest, SplitRef

request = FitRequest(DataRef("iris"), SplitRef("fraction", 0.1, 0), "nca", (), "standardise")
made = notebook_from_code(embed_snippet(request), "NCA on iris, as on the Embed page")
Path("view.ipynb").write_bytes(made)  # as the person downloads it
notebook = nbformat.reads(Path("view.ipynb").read_text(encoding="utf-8"), as_version=4)
notebook.cells.append(nbformat.v4.new_code_cell(
    "import numpy as np\nprint('coordinates', Z.shape, bool(np.isfinite(Z).all()))"))
nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3").execute()
outputs = [o for cell in notebook.cells for o in cell.get("outputs", [])]
printed = "".join(o.get("text", "") for o in outputs)
assert "1-NN accuracy: " in printed, printed
assert "coordinates (150, 2) True" in printed, printed
assert any("application/vnd.plotly.v1+json" in o.get("data", {}) for o in outputs), "no figure"
print("  the Embed page's notebook runs in a Jupyter kernel: " + printed.splitlines()[0])
"""


def run(command, **kwargs) -> subprocess.CompletedProcess:
    print("$", " ".join(str(c) for c in command), flush=True)
    return subprocess.run(command, check=True, **kwargs)


def output(command, expect: int = 0, **kwargs) -> str:
    """stdout + stderr of a command that must exit with `expect`."""
    print("$", " ".join(str(c) for c in command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    text = done.stdout + done.stderr
    if done.returncode != expect:
        raise RuntimeError(f"exit {done.returncode} (expected {expect}):\n{text[-3000:]}")
    return text


def check_command_line(cli: Path, outside: Path, package: Path, env: dict) -> None:
    """The installed `metriclab` script (issue 38, item 5)."""
    import hashlib

    expected = f"metric-learning-lab {__import__('metriclab').__version__}"
    assert output([cli, "--version"], env=env, cwd=outside).strip() == expected
    assert output([cli, "--help"], env=env, cwd=outside).startswith("usage: metriclab ")
    print(f"  `metriclab --version`: {expected}; usage lines say `metriclab`")
    cache = output([cli, "cache", "info"], env=env, cwd=outside)
    assert str(Path(env["XDG_CACHE_HOME"]) / "metriclab") in cache, cache
    print(f"  the result cache is in the user's cache folder: {cache.strip()}")

    listing = output([cli, "bench", "--list"], env=env, cwd=outside)
    assert "bench/ of a source checkout" in listing, listing
    unknown = output([cli, "bench", "knn"], expect=2, env=env, cwd=outside)
    assert "bench/ of a source checkout" in unknown and "known:" not in unknown, unknown
    print("  `metriclab bench` says the benchmarks live in a checkout's bench/")

    run_dir = outside / "fast"
    started = time.monotonic()
    run([cli, "reproduce", "all", "--fast", "--quiet", "--out", str(run_dir)], cwd=outside, env=env)
    tables = sorted(run_dir.glob("*.csv"))
    report = (run_dir / "zhang-iris.md").read_text(encoding="utf-8")
    assert "- command: `metriclab reproduce zhang-iris --fast`" in report
    print(f"  `metriclab reproduce all --fast`: {len(tables)} tables in "
          f"{time.monotonic() - started:.0f} s; the reports name `metriclab`")  # fmt: skip
    text = output([cli, "claims", "--tables", str(run_dir), "--format", "md"], env=env, cwd=outside)
    rows = [r for r in text.splitlines() if r.startswith("| ") and "---" not in r][1:]
    missing = [r for r in rows if "not run / missing in" in r]
    assert rows and len(missing) < len(rows), text[-2000:]
    plain = output([cli, "claims", "--tables", str(run_dir), "--format", "text"], env=env,
                   cwd=outside)  # fmt: skip
    assert "**" not in plain and "|---" not in plain
    print(f"  `metriclab claims --tables` on that run: {len(rows)} claims, "
          f"{len(missing)} not run / missing in it; plain text for a terminal")  # fmt: skip

    def digest() -> str:
        files = sorted(
            p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts
        )
        return hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()

    before = digest()
    refused = output([cli, "claims", "--write"], expect=2, env=env, cwd=outside)
    assert "installed package" in refused and "--write claims.md" in refused, refused
    inside = package / "_reproduction" / "README.md"
    output([cli, "claims", "--write", str(inside)], expect=2, env=env, cwd=outside)
    written = output([cli, "claims", "--write", "claims.md"], env=env, cwd=outside)
    assert (outside / "claims.md").is_file() and "claims table written to" in written
    output([cli, "claims", "--tables", str(run_dir), "--write"], env=env, cwd=outside)
    assert (run_dir / "README.md").is_file()
    assert digest() == before, "a file of the installed package changed"
    print("  `metriclab claims --write` refuses the package's folder, writes a file of yours")


def build_wheel(out: Path) -> Path:
    run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(out)])
    (wheel,) = out.glob("metric_learning_lab-*.whl")
    return wheel


def check_privacy(port: int) -> None:
    """Issue 38, item 8: what the browser receives from `metriclab app` run with no option of
    ours, from another folder: usage statistics off, no Deploy button, no request elsewhere."""
    from playwright.sync_api import sync_playwright

    from metriclab.ui.dev.privacy import served_privacy
    from metriclab.ui.dev.server import CHROMIUM_ARGS, find_chromium

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=find_chromium(), args=CHROMIUM_ARGS)
        served = served_privacy(browser.new_page(), f"http://127.0.0.1:{port}/")
        browser.close()
    if served.problems():
        raise AssertionError(f"the app's served configuration: {served.problems()}")
    print(
        f"  the app serves gatherUsageStats={served.gather_usage_stats}, toolbarMode="
        f"{served.toolbar_mode}, {served.deploy_buttons} Deploy buttons, no request elsewhere"
    )


def check_class(cli: Path, outside: Path, env: dict) -> None:
    """Issue 41: `metriclab class` from the installed wheel, outside the checkout: the HAProxy
    template is the package's copy, two app processes start behind the balancer, a page and the
    health check answer through it with its sticky cookie, and SIGTERM stops all of them."""
    import signal
    import urllib.request

    from metriclab.deploy import haproxy_binary, wait_healthy
    from metriclab.ui.dev.server import free_port

    if haproxy_binary() is None:
        raise RuntimeError("haproxy is not installed (CI installs Debian's haproxy: .ci/run)")
    checked = output([cli, "class", "--workers", "2", "--hosts", "10.0.0.9:8601", "--check"],
                     env=env, cwd=outside)  # fmt: skip
    assert "server w3 10.0.0.9:8601" in checked and "cookie METRICLAB_WORKER" in checked, checked
    port = free_port()
    first = port + 1 if port + 3 < 65000 else port - 3
    command = [str(cli), "class", "--workers", "2", "--port", str(port), "--bind", "127.0.0.1",
               "--first-worker-port", str(first)]  # fmt: skip
    print("$", " ".join(command), flush=True)
    with open(outside / "class.log", "wb") as log:
        proc = subprocess.Popen(command, cwd=outside, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", 240.0, proc)
        seen = set()
        for _ in range(2):  # a client without the cookie: leastconn may send it to either
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as reply:
                assert "<html" in reply.read().decode().lower()
                assert "METRICLAB_WORKER=" in reply.headers.get("Set-Cookie", "")
                seen.add(reply.headers["X-Metriclab-Worker"])
        assert seen <= {"w1", "w2"}, seen
        for worker_port in (first, first + 1):  # both processes are up behind it
            wait_healthy(f"http://127.0.0.1:{worker_port}", 30.0)
        deadline = time.monotonic() + 60
        while "(Ctrl-C stops)" not in (outside / "class.log").read_text(errors="replace"):
            assert time.monotonic() < deadline, "`metriclab class` did not say where it serves"
            time.sleep(0.2)
    except Exception:
        print((outside / "class.log").read_text(errors="replace")[-3000:], file=sys.stderr)
        raise
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert code == 0, f"`metriclab class` exited with {code} on SIGTERM"
    print(f"  `metriclab class --workers 2` serves through HAProxy on port {port} (answered by "
          f"{', '.join(sorted(seen))}) from the installed package; SIGTERM stops it")  # fmt: skip


def check_pages(port: int) -> None:
    """Open Home and Embed in headless Chromium: the title, the page menu and a chart render, and
    no exception box appears."""
    from playwright.sync_api import sync_playwright

    from metriclab.ui.dev.server import CHROMIUM_ARGS, find_chromium, wait_idle

    chromium = find_chromium()
    if chromium is None:
        raise RuntimeError("no Chromium on this machine (CI installs Debian's chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/")
        wait_idle(page)
        assert page.get_by_role("heading", name="metriclab").count() > 0, "Home did not render"
        page.goto(f"http://127.0.0.1:{port}/embed?ds=two_moons")
        wait_idle(page)
        page.wait_for_selector(".js-plotly-plot", timeout=120_000)
        assert page.locator("[data-testid='stException']").count() == 0, "an exception rendered"
        browser.close()
    print("  Home and Embed render in Chromium (a chart, no exception)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, default=None, help="a built wheel (default: build)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium check")
    parser.add_argument("--no-class", action="store_true", help="skip the HAProxy class check")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="metriclab-installed-"))
    proc = None
    try:
        wheel = args.wheel or build_wheel(work / "dist")
        print(f"wheel: {wheel.name}, {wheel.stat().st_size / 2**20:.1f} MB")
        assert wheel.name.startswith("metric_learning_lab-"), wheel.name
        venv = work / "venv"
        # nothing of this process's PYTHONPATH (a checkout holds the build's .egg-info, which
        # pip would take for an installed metric-learning-lab and skip the wheel)
        bare = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        run([sys.executable, "-m", "venv", str(venv)], env=bare)
        python = venv / "bin" / "python"
        run([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"], env=bare)
        run([str(python), "-m", "pip", "install", "-q", str(wheel)], env=bare)
        shown = output([str(python), "-m", "pip", "show", "metric-learning-lab"], env=bare)
        assert "Name: metric-learning-lab" in shown, shown
        outside = work / "elsewhere"
        outside.mkdir()
        env = {k: v for k, v in bare.items() if not k.startswith("STREAMLIT_")}
        env["XDG_CACHE_HOME"] = str(work / "cache")
        env["HOME"] = str(work / "home")  # no ~/.streamlit/config.toml of this machine takes part
        (work / "home").mkdir()
        from metriclab.datasets import names  # the checkout's list, to compare against

        expected = __import__("json").dumps(names(include_unlisted=True))
        run([str(python), "-c", INSIDE, expected], cwd=outside, env=env)
        run([str(venv / "bin" / "metriclab"), "reproduce", "zhang-iris", "--fast", "--quiet",
             "--out", str(outside / "out")], cwd=outside, env=env)  # fmt: skip
        assert (outside / "out" / "zhang-iris.md").exists()
        print("  `metriclab reproduce` writes its table outside the checkout")
        (work / "run_example.py").write_text(RUN_EXAMPLE)
        for example in sorted((ROOT / "examples").glob("plot_*.py")):  # as a user downloads them
            shutil.copy(example, outside / example.name)
            run([str(python), str(work / "run_example.py"), example.name], cwd=outside, env=env)
        print("  the gallery's examples run (metriclab.plotting and Plotly, no matplotlib)")
        package = Path(
            output([str(python), "-c", "import metriclab, os; print(os.path.dirname("
                    "metriclab.__file__))"], cwd=outside, env=env).strip()
        )  # fmt: skip
        check_command_line(venv / "bin" / "metriclab", outside, package, env)
        # a person runs the downloaded notebook with Jupyter: its kernel in the same environment
        run([str(python), "-m", "pip", "install", "-q", "nbclient", "nbformat", "ipykernel"],
            env=bare)  # fmt: skip
        kernel_env = {**env, "PATH": str(venv / "bin") + os.pathsep + env.get("PATH", "")}
        run([str(python), "-c", RUN_NOTEBOOK], cwd=outside, env=kernel_env)
        if not args.no_class:
            check_class(venv / "bin" / "metriclab", outside, env)
        from metriclab.deploy import wait_healthy
        from metriclab.ui.dev.server import free_port

        port = free_port()
        # as a user starts it: no usage-statistics or toolbar option of ours (the package's own
        # configuration must turn them off)
        command = [str(venv / "bin" / "metriclab"), "app", "--server.headless", "true",
                   "--server.port", str(port), "--server.address", "127.0.0.1"]  # fmt: skip
        print("$", " ".join(command), flush=True)
        log = open(work / "app.log", "w")  # noqa: SIM115 - closed in finally
        proc = subprocess.Popen(command, cwd=outside, env=env, stdout=log, stderr=subprocess.STDOUT)
        wait_healthy(f"http://127.0.0.1:{port}", 120.0, proc)
        print(f"  `metriclab app` serves on port {port}")
        if not args.no_browser:
            check_pages(port)
            check_privacy(port)
        print("installed package: all checks passed")
        return 0
    except Exception as exc:  # noqa: BLE001 - report and fail
        log_file = work / "app.log"
        if log_file.exists():
            print(log_file.read_text()[-3000:], file=sys.stderr)
        print(f"FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
