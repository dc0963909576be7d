"""Page state in the URL: widget values are read from `st.query_params` on a fresh session (a shared
or reloaded link) and written back after every change, so a view can be shared and reloaded."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

_SEEN = "_metriclab_url_seen"


def encode(value: Any) -> str:
    if value is None:
        return "auto"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def decode_like(text: str, example: Any) -> Any:
    """Parse `text` to the type of `example` (raises ValueError when it cannot)."""
    if text == "auto":
        return None
    if isinstance(example, bool):
        return text.lower() in ("1", "true", "yes", "on")
    if isinstance(example, int):
        return int(float(text))
    if isinstance(example, float):
        return float(text)
    return text


def nearest_option(value: Any, options: Sequence[Any]) -> Any:
    """The option equal to `value`, or for numbers the closest one (URL values are rounded)."""
    if value in options:
        return options[list(options).index(value)]
    numeric = [o for o in options if isinstance(o, int | float) and not isinstance(o, bool)]
    if isinstance(value, int | float) and numeric:
        return min(numeric, key=lambda o: abs(o - value))
    raise ValueError(f"{value!r} is not one of the options")


def seed_from_url(
    key: str,
    default: Any,
    options: Sequence[Any] | None = None,
    parse: Callable[[str], Any] | None = None,
) -> None:
    """Before a widget with session-state key `key` is drawn: if the session has no value yet, take
    it from the URL (when present and valid), else `default`. Invalid URL values are ignored."""
    seen = st.session_state.setdefault(_SEEN, set())
    if key in st.session_state:
        seen.add(key)
        return
    value = default
    if key in st.query_params and key not in seen:
        text = st.query_params[key]
        try:
            example = default if default is not None else ""
            parsed = parse(text) if parse else decode_like(text, example)
            value = nearest_option(parsed, options) if options is not None else parsed
        except (ValueError, TypeError, IndexError):
            value = default
    seen.add(key)
    st.session_state[key] = value


def publish(values: dict[str, Any], prune: Sequence[str] = ()) -> None:
    """Write `values` to the URL (only those that changed); drop URL keys that start with a prefix in
    `prune` and are not in `values` (parameters of a method no longer shown)."""
    current = st.query_params.to_dict()
    for key, value in values.items():
        text = encode(value)
        if current.get(key) != text:
            st.query_params[key] = text
    for key in current:
        if key not in values and any(key.startswith(p) for p in prune):
            del st.query_params[key]
