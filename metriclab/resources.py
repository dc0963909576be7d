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
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent


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


class MissingExtra(RuntimeError):
    """An optional dependency is not installed; the message names the extra that installs it."""


def require(module: str, extra: str, purpose: str) -> None:
    """Import check for an optional dependency: MissingExtra with a one-line message if absent."""
    from importlib.util import find_spec

    if find_spec(module) is None:
        raise MissingExtra(
            f"{purpose} needs the optional dependency '{module}': "
            f'pip install "metriclab[{extra}]"'
        )
