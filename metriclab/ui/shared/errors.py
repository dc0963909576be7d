"""One guard for every call from a page into the library: a ValueError becomes `st.error(reason)`,
anything else a short error line, never a traceback on the page."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

T = TypeVar("T")
log = logging.getLogger("metriclab.ui")


def error_message(exc: BaseException) -> str:
    """What the person sees: the ValueError's own reason, or the kind and text of anything else."""
    if isinstance(exc, ValueError):
        return str(exc) or "invalid input"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def guarded(fn: Callable[..., T], *args: Any, context: str = "", **kwargs: Any) -> T | None:
    """`fn(*args, **kwargs)`, or None after showing `st.error` with the reason when it raises.

    Streamlit's own control-flow exceptions (rerun, stop) derive from BaseException and pass through.
    """
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the page must never show a traceback
        if not isinstance(exc, ValueError):
            log.exception("unexpected error in %s", context or getattr(fn, "__name__", fn))
        prefix = f"{context}: " if context else ""
        st.error(prefix + error_message(exc), icon=":material/error:")
        return None
