"""Page state in the URL: widget values are read from `st.query_params` on a fresh session (a shared
or reloaded link) and written back after every change, so a view can be shared and reloaded.

Every URL value is validated before it reaches a widget: against the widget's options (registry
keys, data set names, slider grids), its numeric range, and for finiteness and length. A value that
is out of range is clamped, one that is not valid falls back to the default; either way the page
shows a warning naming the parameter and what was done (next to the widget, until the person
changes it), and the URL is rewritten to the value in use. Nothing from the URL is ever evaluated,
imported or used as a path."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

_VIEW = "_metriclab_view"  # what the person chose, by widget key: outlives the widgets
_PUBLISHED = "_metriclab_url_written"  # the text this session last wrote (or read) per URL key
_NOTICES = "_metriclab_url_notices"
_SLOT = "_metriclab_notice_slot"
_STAND_INS = "_metriclab_stand_ins"  # key -> (value a page showed instead, the person's choice)
MAX_VALUE_CHARS = 200  # longer URL values are refused unread (the longest valid one is ~100)
TRUE_TEXTS = ("1", "true", "yes", "on")
FALSE_TEXTS = ("0", "false", "no", "off")


class URLValueError(ValueError):
    """A URL value that cannot be used; the message says why (shown to the person)."""


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


def _finite(value: float, text: str) -> float:
    if not math.isfinite(value):
        raise URLValueError(f"{_shown(text)} is not a finite number")
    return value


def decode_like(text: str, example: Any) -> Any:
    """Parse `text` to the type of `example` (raises ValueError when it cannot)."""
    if text == "auto":
        return None
    if isinstance(example, bool):
        lowered = text.lower()
        if lowered in TRUE_TEXTS or lowered in FALSE_TEXTS:
            return lowered in TRUE_TEXTS
        raise URLValueError(f"{_shown(text)} is not on/off (1 or 0)")
    if isinstance(example, int):
        try:
            number = _finite(float(text), text)
        except ValueError as exc:
            raise URLValueError(f"{_shown(text)} is not a whole number") from exc
        if number != int(number):
            raise URLValueError(f"{_shown(text)} is not a whole number")
        return int(number)
    if isinstance(example, float):
        try:
            return _finite(float(text), text)
        except URLValueError:
            raise
        except ValueError as exc:
            raise URLValueError(f"{_shown(text)} is not a number") from exc
    return text


def _shown(text: Any) -> str:
    """A URL value as quoted in a notice (short: a hostile value is not echoed in full)."""
    text = str(text).replace("`", "'")
    return f"`{text if len(text) <= 40 else text[:37] + '...'!r}`"  # code: no markdown inside


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def nearest_option(value: Any, options: Sequence[Any]) -> Any:
    """The option equal to `value`, or for numbers the closest one (URL values are rounded)."""
    if value in options:
        return options[list(options).index(value)]
    numeric = [o for o in options if _is_number(o)]
    if _is_number(value) and numeric:
        if not math.isfinite(value):
            raise URLValueError(f"{_shown(value)} is not a finite number")
        return min(numeric, key=lambda o: abs(o - value))
    raise URLValueError(f"{_shown(value)} is not one of the choices")


@dataclass(frozen=True)
class Rule:
    """How a widget's value is checked: its default, its options or its bounds, how URL text is
    parsed, and what the page calls it (`label`; `shown(value)` gives a value as the widget shows
    it) so that a notice names things as the page does."""

    default: Any
    options: Sequence[Any] | None = None
    parse: Callable[[str], Any] | None = None
    bounds: tuple[float | None, float | None] = (None, None)
    label: str = ""
    shown: Callable[[Any], str] | None = None
    max_chars: int = MAX_VALUE_CHARS
    near: Callable[[Any], Any] | None = None  # the stand-in for a value not among the options


def validate(
    text: str,
    default: Any,
    options: Sequence[Any] | None = None,
    parse: Callable[[str], Any] | None = None,
    bounds: tuple[float | None, float | None] = (None, None),
    max_chars: int = MAX_VALUE_CHARS,
) -> tuple[Any, str | None]:
    """The value a widget gets for URL text `text`, and a notice saying what was changed (None when
    the value is used as given, up to the rounding of URL numbers). A number outside `bounds`
    (low, high; None: open) is clamped. Texts longer than `max_chars` are refused unread."""
    return validate_rule(text, Rule(default, options, parse, bounds, max_chars=max_chars))


def validate_rule(text: str, rule: Rule) -> tuple[Any, str | None]:
    """`validate` with the widget's `Rule` (values in the notice shown as the widget shows them)."""
    default, options, (low, high) = rule.default, rule.options, rule.bounds
    show = rule.shown or (lambda v: repr(encode(v)))
    if len(text) > rule.max_chars:
        return default, f"the value is {len(text):,} characters long; using the default"
    try:
        if isinstance(default, list) and options is not None:
            return _validate_list(text, default, options)
        if options is not None and text in [o for o in options if isinstance(o, str)]:
            return text, None  # an option spelled as it is ("auto" is a choice, not "automatic")
        example = default if default is not None else ""
        value = rule.parse(text) if rule.parse else decode_like(text, example)
    except (ValueError, TypeError, IndexError, OverflowError) as exc:
        reason = str(exc) if isinstance(exc, URLValueError) else f"{_shown(text)} is not valid"
        return _instead(rule, text, reason, show)
    if _is_number(value) and not math.isfinite(value):
        return default, f"{_shown(text)} is not a finite number; using the default {show(default)}"
    if options is not None:
        numeric = [o for o in options if _is_number(o)]
        if _is_number(value) and numeric and not min(numeric) <= value <= max(numeric):
            clamped = min(max(value, min(numeric)), max(numeric))
            bound = "maximum" if value > max(numeric) else "minimum"
            return (
                clamped,
                f"{_shown(text)} is outside the slider's range; using the {bound} {encode(clamped)}",
            )
        try:
            return nearest_option(value, options), None
        except URLValueError as exc:
            return _instead(rule, value, str(exc), show)
    return _clamped(
        value,
        (low, high),
        lambda side, end: (
            f"{_shown(text)} is {side} the {EXTREME[side]} {encode(end)}; using {encode(end)}"
        ),
    )


EXTREME = {"above": "maximum", "below": "minimum"}


def _clamped(value: Any, bounds: tuple, say: Callable[[str, Any], str]) -> tuple[Any, str | None]:
    """`value` within `bounds` (low, high; None: open) and `say(side, end)` where it was moved
    ("above" or "below", the end it was moved to); a non-number is left as it is."""
    low, high = bounds
    if _is_number(value) and high is not None and value > high:
        return type(value)(high), say("above", high)
    if _is_number(value) and low is not None and value < low:
        return type(value)(low), say("below", low)
    return value, None


def _validate_list(text: str, default: list, options: Sequence[Any]) -> tuple[list, str | None]:
    items = [t for t in text.split(",") if t]
    kept = [t for t in items if t in options]
    dropped = [t for t in items if t not in options]
    if not dropped:
        return kept, None
    names = ", ".join(_shown(t) for t in dropped[:3]) + (" ..." if len(dropped) > 3 else "")
    if not kept:
        return list(default), f"{names} not available; using the default {encode(default)!r}"
    return kept, f"{names} not available; left out"


def seed_from_url(
    key: str,
    default: Any,
    options: Sequence[Any] | None = None,
    parse: Callable[[str], Any] | None = None,
    bounds: tuple[float | None, float | None] = (None, None),
    label: str = "",
) -> None:
    """`seed_widget(key, Rule(...))`: before a widget with session-state key `key` is drawn."""
    seed_widget(key, Rule(default, options, parse, bounds, label))


def seed_widget(key: str, rule: Rule) -> None:
    """Before the widget with session-state key `key` is drawn, give it its value:

    1. a value in the link that this session did not write itself (a shared link, a reload, the
       browser's back and forward buttons) — validated against `rule`;
    2. else the widget's value in this session;
    3. else the session's view (what the person chose on this or another page: it outlives the
       widget, which Streamlit drops when another page runs);
    4. else `rule.default`.
    A value that `rule` no longer allows (another data set, another cap) is clamped or reset, and
    every change made to a value is announced at the top of the page, naming the widget by its
    label, until the person changes it. The value shown instead is a stand-in: the person's choice
    stays the session's view, so that a page that allows it shows it again (all of MNIST on
    Embed, after a visit to a page that draws at most 5,000 digits), until the person changes the
    widget."""
    view = st.session_state.setdefault(_VIEW, {})
    written = st.session_state.setdefault(_PUBLISHED, {})
    stand_ins = st.session_state.setdefault(_STAND_INS, {})
    text = st.query_params.get(key)
    notice = None
    if text is not None and written.get(key) != text:  # from outside this session
        value, notice = validate_rule(text, rule)
        written[key] = text  # read once: from now on the widget (or a new link) decides
        stand_ins.pop(key, None)
        if notice is not None:
            notice = f"Link: {_named(key, rule)} — {notice}."
    elif key in st.session_state or key in view:
        held = st.session_state[key] if key in st.session_state else view[key]
        chosen = _chosen(stand_ins, key, held)
        value, notice = _still_allowed(chosen, rule, key)
        if _same(value, chosen):
            stand_ins.pop(key, None)
        else:
            stand_ins[key] = (value, chosen)
    else:
        value = rule.default
    st.session_state[key] = value  # re-asserted every run: survives a change of the widget's range
    view[key] = stand_ins[key][1] if key in stand_ins else value
    notices = st.session_state.setdefault(_NOTICES, {})
    if notice is not None:
        notices[key] = (notice, value)
    _show_notice(key, notices)


_NO_STAND_IN = object()


def _stand_in(rule: Rule, value: Any) -> Any:
    """`rule.near(value)` where it names one of the options, else _NO_STAND_IN (an option may be
    None: "auto")."""
    if rule.near is None or rule.options is None:
        return _NO_STAND_IN
    near = rule.near(value)
    return near if near is not None and near in rule.options else _NO_STAND_IN


def _instead(rule: Rule, value: Any, reason: str, show: Callable[[Any], str]) -> tuple[Any, str]:
    """A link's value the widget cannot take: its stand-in where `rule` names one, else the
    default, with the notice saying which and why."""
    near = _stand_in(rule, value)
    if near is not _NO_STAND_IN:
        return near, f"{reason}; using {show(near)}"
    return rule.default, f"{reason}; using the default {show(rule.default)}"


def _same(a: Any, b: Any) -> bool:
    """Equal values (numbers by value; a flag is not a number)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _chosen(stand_ins: dict, key: str, held: Any) -> Any:
    """The person's choice behind the value `held` for `key`: the one it stands in for while the
    widget still holds the stand-in, else `held` itself (the person has changed it)."""
    if key in stand_ins:
        stand_in, chosen = stand_ins[key]
        if _same(held, stand_in):
            return chosen
        del stand_ins[key]
    return held


def _named(key: str, rule: Rule) -> str:
    return f"**{rule.label}**" if rule.label else f"`{key}`"


def _still_allowed(value: Any, rule: Rule, key: str) -> tuple[Any, str | None]:
    """`value` if `rule` allows it, else the nearest allowed value and a notice saying so."""
    if value is None and rule.default is None:
        return value, None
    options, (low, high) = rule.options, rule.bounds
    show = rule.shown or encode
    if options is not None:
        if isinstance(value, list):
            kept = [v for v in value if v in options]
            if len(kept) == len(value):
                return value, None
            dropped = ", ".join(show(v) for v in value if v not in options)
            return kept or list(rule.default), (
                f"{_named(key, rule)}: {dropped} not available here; left out"
            )
        if value in options:
            return value, None
        near = _stand_in(rule, value)
        if near is _NO_STAND_IN:
            try:
                near = nearest_option(value, options)
            except URLValueError:
                near = rule.default
        return near, (
            f"{_named(key, rule)}: {show(value)} is not available here; using {show(near)}"
        )
    return _clamped(
        value,
        (low, high),
        lambda side, end: (
            f"{_named(key, rule)}: {show(value)} is {side} the {EXTREME[side]} "
            f"here; using {show(end)}"
        ),
    )


def notice_area() -> None:
    """The place at the top of the page where the notices about the view are shown (called first
    by every page, through `router.ensure_router`)."""
    st.session_state[_SLOT] = st.container()


def _show_notice(key: str, notices: dict) -> None:
    if key not in notices:
        return
    message, value = notices[key]
    if st.session_state.get(key) != value:  # the person has set it since: the notice is done
        del notices[key]
        return
    announce(message)


def announce(message: str) -> None:
    """Show a notice about the view at the top of the page (in place when the page has no notice
    area)."""
    slot = st.session_state.get(_SLOT)
    (slot if slot is not None else st).warning(message, icon=":material/link_off:")


def view_value(key: str, default: Any = None) -> Any:
    """What the person chose for `key` on any page of this session (None: nothing yet)."""
    if key in st.session_state:
        return st.session_state[key]
    return st.session_state.get(_VIEW, {}).get(key, default)


def remember(values: dict[str, Any]) -> None:
    """Write values into the session's view, as if the person had chosen them (a preset, a lesson
    step, another page's choice); the widgets take them when they are next drawn (`seed_widget`).

    A widget's key is not written into the session state but removed from it: a value written
    under a key whose widget is not on the page (a lesson step sets Embed's data set) stays in
    Streamlit's session state beneath the widget that later takes the key, and comes back when
    that widget leaves (another page runs), so the Embed page reopened on the lesson's view
    after the person had changed it (issue 36). Keys starting with "_" are the app's own
    bookkeeping, not widgets: they are set as given."""
    view = st.session_state.setdefault(_VIEW, {})
    stand_ins = st.session_state.setdefault(_STAND_INS, {})
    for key, value in values.items():
        if key.startswith("_"):
            st.session_state[key] = value
            continue
        view[key] = value
        st.session_state.pop(key, None)
        stand_ins.pop(key, None)  # a choice made now, not the one a stand-in was shown for


def publish(values: dict[str, Any], prune: Sequence[str] = ()) -> None:
    """Write `values` to the URL (only those that changed); drop URL keys that start with a prefix in
    `prune` and are not in `values` (parameters of a method no longer shown). What is written is
    remembered, so that a link value this session did not write can be told apart (`seed`)."""
    written = st.session_state.setdefault(_PUBLISHED, {})
    current = st.query_params.to_dict()
    wanted = {
        key: text
        for key, text in current.items()
        if key in values or not any(key.startswith(p) for p in prune)
    }
    for key, value in values.items():
        wanted[key] = written[key] = encode(value)
    # one URL update per call (not one a key): the browser gets one history entry for it
    if wanted != current:
        st.query_params.from_dict(wanted)


def unpublish(key: str) -> None:
    """Drop `key` from the URL (a value at its default that the link leaves out) and forget that
    this session wrote it, so that a link bringing the same text back is read (`seed_widget`)."""
    st.session_state.setdefault(_PUBLISHED, {}).pop(key, None)
    if key in st.query_params:
        del st.query_params[key]


def form_is_ready(name: str, keys: Sequence[str]) -> bool:
    """Whether form `name` was drawn on the previous run with its widgets' values in the session
    (`keys`); call before the form's widgets are seeded. False on a session's first run and after
    the form's values were dropped (streamlit drops a widget's value when another page ran)."""
    drawn = st.session_state.get(f"_form_drawn.{name}", False)
    return bool(drawn) and all(k in st.session_state for k in keys)


def mark_form_drawn(name: str, rerun: bool) -> None:
    """After form `name` is drawn: remember it, and with `rerun` start the next run at once (the
    one that draws the form ready to submit)."""
    st.session_state[f"_form_drawn.{name}"] = True
    if rerun:
        st.rerun()
