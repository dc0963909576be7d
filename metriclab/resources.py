"""Where the lab's files are: a checkout's top-level folders, or the installed package's copies.

The repository keeps the layout the project started with: `sample_data/`, `pages/`, `app.py` and
`docs/reproduction/` at the top level, where people look for them and edit them. A wheel cannot
carry files from outside its package, so `setup.py` maps those folders into the package at build
time (`metriclab/_sample_data`, `metriclab/_pages`, `metriclab/_reproduction`); one copy is
canonical (the checkout's), none is duplicated in git. At run time the packaged copy is used
where it exists (an installed wheel), the checkout's otherwise (a checkout, editable or not).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent
# The name on the package index (pyproject's `name`); the import name stays `metriclab`. Another
# project on the index is called `metriclab` and installs the same import name: never both.
DISTRIBUTION = "metric-learning-lab"


def _lab_folder(packaged: str, top_level: str) -> Path:
    inside = PACKAGE / packaged
    return inside if inside.is_dir() else CHECKOUT / top_level


def sample_data() -> Path:
    """The shipped data sets (npz files, catalog.json, PROVENANCE.md)."""
    return _lab_folder("_sample_data", "sample_data")


def pages() -> Path:
    """The app's page scripts."""
    return _lab_folder("_pages", "pages")


def reproduction() -> Path:
    """The committed full reproduction runs (tables, per-split values, the claims README)."""
    return _lab_folder("_reproduction", os.path.join("docs", "reproduction"))


def deploy_folder() -> Path:
    """The class's deployment files (`deploy/` of a checkout: the HAProxy template)."""
    return _lab_folder("_deploy", "deploy")


def streamlit_config() -> Path:
    """The project's Streamlit configuration (`.streamlit/config.toml` of a checkout, the wheel's
    copy otherwise): usage statistics off, the Deploy button hidden, the runner's settings."""
    return _lab_folder("_streamlit", ".streamlit") / "config.toml"


def streamlit_options(given: list[str] | tuple[str, ...] = (), environ=None) -> list[str]:
    """The project's Streamlit configuration as command-line flags (`--browser.gatherUsageStats
    false`, ...), for a server started from any folder: Streamlit reads config.toml from the
    user's home, the current folder and (recent versions) a .streamlit/ folder beside the script,
    none of which holds the project's file when the package is installed. An option the user gives
    on the command line (`given`) or by its STREAMLIT_* environment variable (in `environ`, default
    this process's environment) is left to them."""
    import tomllib

    with streamlit_config().open("rb") as fh:
        config = tomllib.load(fh)
    flags = []
    for section, options in config.items():
        for key, value in options.items():
            name = f"{section}.{key}"
            # Streamlit's own spelling: runner.postScriptGC -> STREAMLIT_RUNNER_POST_SCRIPT_GC
            env = "STREAMLIT_" + re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", f"{section}_{key}").upper()
            if any(a == f"--{name}" or a.startswith(f"--{name}=") for a in given):
                continue
            if env in (os.environ if environ is None else environ):
                continue
            text = str(value).lower() if isinstance(value, bool) else str(value)
            flags += [f"--{name}", text]
    return flags


def app_script() -> Path:
    """The script `streamlit run` serves: the checkout's app.py, else the package's router."""
    top = CHECKOUT / "app.py"
    return top if top.is_file() and in_checkout() else PACKAGE / "ui" / "app.py"


def in_checkout() -> bool:
    """Whether the package runs from a source checkout (its pyproject.toml beside it)."""
    return (CHECKOUT / "pyproject.toml").is_file() and (CHECKOUT / "sample_data").is_dir()


def cache_home() -> Path:
    """Where results are cached by default: `.metriclab_cache/` in a checkout, else the user's
    cache directory (never inside site-packages)."""
    if in_checkout():
        return CHECKOUT / ".metriclab_cache"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "metriclab"


def version() -> str:
    """The installed distribution's version (its metadata), else the package's `__version__` (a
    checkout used without installing it, or installed under an older name)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as metadata_version

    try:
        return metadata_version(DISTRIBUTION)
    except PackageNotFoundError:
        from metriclab import __version__

        return __version__


class MissingExtra(RuntimeError):
    """An optional dependency is not installed; the message names the extra that installs it."""


def require(module: str, extra: str, purpose: str) -> None:
    """Import check for an optional dependency: MissingExtra with a one-line message if absent."""
    from importlib.util import find_spec

    if find_spec(module) is None:
        raise MissingExtra(
            f"{purpose} needs the optional dependency '{module}': "
            f'pip install "{DISTRIBUTION}[{extra}]"'
        )
