"""CSV uploads on the Data page: parse with `metriclab.datasets.load_csv`, report problems with
st.error, keep the data set in this session only, and share it by link on request."""

from __future__ import annotations

import streamlit as st

from metriclab.ui import cache


def handle_upload(data: bytes, filename: str, label_column: str | None = None) -> str | None:
    """Register an uploaded CSV in this session and return its data set key; on a bad file show
    `st.error` with the loader's reason (which row or column is wrong) and return None."""
    try:
        key = cache.register_upload(data, filename, label_column)
    except ValueError as exc:
        st.error(f"Could not read {filename}: {exc}", icon=":material/error:")
        return None
    except (UnicodeDecodeError, OSError, EOFError) as exc:
        st.error(f"Could not read {filename}: not a readable CSV file ({type(exc).__name__})")
        return None
    dropped = cache.last_dropped()
    if dropped:
        st.info(
            f"A session keeps at most {cache.MAX_UPLOADS} uploads "
            f"({cache.MAX_UPLOAD_BYTES // cache.MB} MB); dropped the oldest: {', '.join(dropped)}"
        )
    return key


def share_controls(key: str) -> None:
    """For one of this session's uploads: a note that it is private, and a button that publishes
    it by link (anyone holding the link can then open it, for `cache.SHARE_TTL_S` seconds)."""
    if not key.startswith(cache.UPLOAD_PREFIX):
        return
    if cache.is_shared(key):
        st.success(
            f"Shared by link: anyone with this page's link (`?ds={key}`) can open this data set "
            f"for {cache.SHARE_TTL_S / 3600:.0f} h.",
            icon=":material/link:",
        )
        return
    st.caption(
        "This upload is private to your session: other people cannot see it, and it is dropped "
        "when you close the page."
    )
    if st.button(
        "Share by link",
        key="share_upload",
        help="Publish this data set to anyone "
        "who has the page's link (the key in the link cannot be guessed).",
    ):
        try:
            cache.share_upload(key)
        except ValueError as exc:
            st.error(str(exc), icon=":material/error:")
            return
        st.rerun()
