"""CSV uploads on the Data page: parse with `metriclab.datasets.load_csv`, report problems with st.error."""

from __future__ import annotations

import streamlit as st

from metriclab.ui import cache


def handle_upload(data: bytes, filename: str, label_column: str | None = None) -> str | None:
    """Register an uploaded CSV and return its data set key; on a bad file show `st.error` with the
    loader's reason (which row or column is wrong) and return None."""
    try:
        return cache.register_upload(data, filename, label_column)
    except NotImplementedError:
        st.info("CSV upload is not available yet (the loader is being written).")
    except ValueError as exc:
        st.error(f"Could not read {filename}: {exc}", icon=":material/error:")
    except (UnicodeDecodeError, OSError, EOFError) as exc:
        st.error(f"Could not read {filename}: not a readable CSV file ({type(exc).__name__})")
    return None
