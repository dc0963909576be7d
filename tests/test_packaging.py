"""The wheel carries the whole lab (issue 25): setup.py maps the top-level folders into the package,
metriclab.resources finds either copy, and `metriclab app` serves the packaged router. The real
install (wheel in a fresh venv, used from another folder, the app in Chromium) is
tools/check_installed.py, run by CI."""

from __future__ import annotations

import ast
import fnmatch
import re
import tomllib
from pathlib import Path

import pytest

from metriclab import resources
from metriclab.__main__ import main
from metriclab.ui import navigation

ROOT = Path(__file__).resolve().parents[1]


def _setup_config() -> tuple[dict, dict]:
    """LAB_FOLDERS and package_data as setup.py writes them (read, not executed)."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    folders = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and node.targets[0].id == "LAB_FOLDERS"
    )
    call = next(
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "setup"
    )
    package_data = next(ast.literal_eval(k.value) for k in call.keywords if k.arg == "package_data")
    return folders, package_data


def test_the_checkout_is_found_as_a_checkout():
    assert resources.in_checkout()
    assert resources.sample_data() == ROOT / "sample_data"
    assert resources.pages() == ROOT / "pages"
    assert resources.reproduction() == ROOT / "docs" / "reproduction"
    assert resources.cache_home() == ROOT / ".metriclab_cache"
    assert resources.deploy_folder() == ROOT / "deploy"


def test_every_file_of_the_mapped_folders_is_in_the_wheels_package_data():
    """A new data file, page or table cannot silently miss the wheel (a file belongs to the
    deepest mapped folder that holds it: setuptools reads a sub-folder as a package of its own)."""
    folders, package_data = _setup_config()
    tops = ("sample_data", "pages", "docs/reproduction", ".streamlit", "deploy")
    assert set(folders.values()) == {*tops, "docs/reproduction/splits"}
    by_depth = sorted(folders.items(), key=lambda item: -len(item[1]))
    for top in tops:
        for path in (ROOT / top).rglob("*"):
            if path.is_dir() or "__pycache__" in path.parts:
                continue
            package, folder = next((p, f) for p, f in by_depth if path.is_relative_to(ROOT / f))
            relative = path.relative_to(ROOT / folder).as_posix()
            assert any(fnmatch.fnmatch(relative, p) for p in package_data[package]), (
                f"{top}/{path.relative_to(ROOT / top).as_posix()} is not shipped: "
                "add a pattern to setup.py's package_data"
            )


def test_package_data_of_the_package_itself_is_declared():
    _, package_data = _setup_config()
    assert "*.png" in package_data["metriclab.ui.assets"]
    assert "*.toml" in package_data["metriclab.reproduce"]
    for toml in (ROOT / "metriclab").rglob("*.toml"):
        package = ".".join(toml.parent.relative_to(ROOT).parts)
        assert any(fnmatch.fnmatch(toml.name, p) for p in package_data.get(package, [])), toml


def test_every_page_file_is_in_the_navigation_and_back():
    files = {p.stem for p in (ROOT / "pages").glob("*.py")}
    keys = {page.key for page in navigation.PAGES}
    assert files <= keys, f"pages missing from metriclab/ui/navigation.py: {files - keys}"
    assert {page.key for page in navigation.available()} == files


def test_app_subcommand_passes_streamlit_options_through(monkeypatch):
    calls = []

    class Started:  # subprocess.Popen as cmd_app uses it
        def __init__(self, command):
            calls.append(command)

        def wait(self):
            return 0

    monkeypatch.setattr("subprocess.Popen", Started)
    monkeypatch.delenv("STREAMLIT_SERVER_HEADLESS", raising=False)
    assert main(["app", "--server.port", "8600", "--server.headless", "false"]) == 0
    (command,) = calls
    assert command[1:4] == ["-m", "metriclab.ui.shared.serve", "run"]  # streamlit run, no IP lookup
    assert command[4] == str(resources.PACKAGE / "ui" / "app.py")
    assert command[-4:] == ["--server.port", "8600", "--server.headless", "false"]
    # the project's configuration comes first, less what the user gave (their value wins)
    project = command[5:-4]
    assert project == resources.streamlit_options(["--server.headless"])
    assert "--server.headless" not in project


def test_app_carries_the_projects_streamlit_configuration(monkeypatch):
    """Issue 38, item 8: Streamlit reads config.toml only from ~/.streamlit and the current folder,
    so `metriclab app` from any folder (or an installed wheel) passes the project's file as flags:
    usage statistics off, the Deploy button hidden (toolbarMode viewer), the runner's settings."""
    config = tomllib.loads(resources.streamlit_config().read_text(encoding="utf-8"))
    assert resources.streamlit_config() == ROOT / ".streamlit" / "config.toml"
    assert config["browser"]["gatherUsageStats"] is False
    assert config["client"]["toolbarMode"] == "viewer"
    for name in ("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "STREAMLIT_CLIENT_TOOLBAR_MODE"):
        monkeypatch.delenv(name, raising=False)
    flags = resources.streamlit_options()
    pairs = dict(zip(flags[::2], flags[1::2], strict=True))
    assert pairs["--browser.gatherUsageStats"] == "false"
    assert pairs["--client.toolbarMode"] == "viewer"
    assert pairs["--runner.postScriptGC"] == "false"
    expected = {f"--{section}.{key}" for section, keys in config.items() for key in keys}
    assert set(pairs) == expected
    # an option the user sets, by a flag or by Streamlit's environment variable, is theirs
    assert "--client.toolbarMode" not in resources.streamlit_options(["--client.toolbarMode=auto"])
    monkeypatch.setenv("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "true")
    assert "--browser.gatherUsageStats" not in resources.streamlit_options()


def test_a_missing_extra_is_one_line_naming_it(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "distributed" else real(name, *a),
    )
    code = main(["compare", "--dataset", "iris", "--scheduler", "tcp://nowhere:8786"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.count("\n") == 0 and 'pip install "metric-learning-lab[dask]"' in err
    assert "Traceback" not in err


@pytest.mark.parametrize("key", [p.key for p in navigation.available()])
def test_page_links_are_absolute_paths_to_existing_files(key):
    path = navigation.page_file(key)
    assert path.is_absolute() and path.is_file()


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_the_distribution_name_is_ours_everywhere_it_is_written():
    """Issue 38: `metriclab` on the package index is another project. README's and the install
    docs' `pip install` lines, the wheel's file name and `metriclab --version` use pyproject's
    name, and the import name stays `metriclab`."""
    project = _pyproject()
    name, version = project["name"], project["version"]
    assert name == resources.DISTRIBUTION == "metric-learning-lab"
    assert project["scripts"] == {"metriclab": "metriclab.__main__:main"}
    wheel = f"{re.sub(r'[-_.]+', '_', name)}-{version}-py3-none-any.whl"
    for doc in ("README.md", "docs/source/getting_started.rst"):
        text = (ROOT / doc).read_text(encoding="utf-8")
        installs = re.findall(r"pip install (\"?)([A-Za-z0-9_.\-]+)(\[[a-z,]+\])?\1(?=\s)", text)
        from_index = [pkg for _, pkg, _ in installs if not pkg.startswith((".", "-"))]
        assert from_index and set(from_index) == {name}, (doc, from_index)
        assert "pip install metriclab " not in text and 'pip install "metriclab[' not in text
        # the other project that shares the import name is named, so nobody installs both
        assert "called `metriclab`" in text or "called ``metriclab``" in text, doc
    assert f"dist/{wheel}" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_version_names_the_distribution(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"metric-learning-lab {_pyproject()['version']}"


@pytest.mark.parametrize("how", ["metriclab app", "make run"])
def test_the_server_asks_no_other_host_for_its_address(how, tmp_path):
    """A headless Streamlit server on all addresses asked checkip.amazonaws.com for the machine's
    external address when it started (offline it warned "Did not auto detect external IP"); the
    lab sends nothing anywhere, so `metriclab app` and `make run` print the local and network
    URLs only."""
    import os
    import subprocess
    import sys
    import time

    from metriclab.ui.dev.server import free_port

    if how == "make run":
        recipe = re.search(r"^run:.*\n\t(.*)\n", (ROOT / "Makefile").read_text(), re.M)
        command, cwd = recipe.group(1).replace("$(PY)", sys.executable).split(), ROOT
    else:
        command, cwd = [sys.executable, "-m", "metriclab", "app"], tmp_path
    port = free_port()
    command += ["--server.port", str(port), "--server.fileWatcherType", "none"]
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env = {k: v for k, v in env.items() if not k.startswith("STREAMLIT_")}
    log = tmp_path / "server.log"
    with log.open("w") as out:
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180
        # the URLs are printed once, after the address lookups
        while "Local URL" not in log.read_text() and proc.poll() is None:
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    text = log.read_text()
    assert f"Local URL: http://localhost:{port}" in text, text
    assert "External URL" not in text and "external IP" not in text, text
