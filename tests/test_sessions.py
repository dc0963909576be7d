"""Uploads belong to the session that uploaded them: two AppTest sessions of one server process —
the module-level caches are shared between them exactly as between browser tabs."""

from __future__ import annotations

import time

import numpy as np
from streamlit.testing.v1 import AppTest

from tests.apptest_helpers import ROOT, figures, values

TIMEOUT = 120


def csv_rows(n: int = 40, shift: int = 0) -> bytes:
    rows = "\n".join(f"{(i + shift) % 7},{(i * 3) % 5},{'ab'[i % 2]}" for i in range(n))
    return f"x,z,kind\n{rows}\n".encode()


def session(page: str = "data", query: dict | None = None) -> AppTest:
    """A new browser session opened at `page`."""
    at = AppTest.from_file(str(ROOT / "pages" / f"{page}.py"), default_timeout=TIMEOUT)
    if query:
        at.query_params.update(query)
    return at.run()


def upload(at: AppTest, content: bytes, name: str = "mine.csv") -> str:
    at.sidebar.file_uploader(key="upload").set_value((name, content, "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at.session_state["ds"]


def picker_options(at: AppTest) -> list[str]:
    return list(at.sidebar.selectbox(key="ds").options)


def warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning] + [w.value for w in at.sidebar.warning]


def test_an_upload_is_listed_and_loaded_in_its_own_session_only():
    a = session()
    key = upload(a, csv_rows(), "private-a.csv")
    assert key.startswith("upload:") and len(key) == len("upload:") + 24
    assert a.subheader[0].value == "private-a.csv"
    assert any("private-a.csv" in o for o in picker_options(a))
    a.switch_page("embed.py")
    a.run()
    assert any("private-a.csv" in o for o in picker_options(a))  # on every page of the session
    a.sidebar.selectbox(key="ds").set_value(key).run()
    assert not a.exception and not a.error
    assert sum(len(values(t["x"])) for t in figures(a)[0]["data"]) == 40

    b = session()
    assert not any("private-a.csv" in o for o in picker_options(b))
    assert not any(o.startswith("uploaded: ") for o in picker_options(b))
    # A's link opened in B: a clear notice, the default data set, the URL rewritten
    b_link = session("embed", {"ds": key, "method": "pca"})
    assert not b_link.exception and not b_link.error
    assert b_link.session_state["ds"] == "two_moons"
    notice = " ".join(warnings(b_link))
    assert "**Data set**" in notice and "private to the session" in notice
    assert b_link.query_params["ds"] in ("two_moons", ["two_moons"])


def test_the_caches_refuse_another_sessions_upload_even_after_it_was_computed():
    a = session()
    key = upload(a, csv_rows(shift=3), "fitted-a.csv")
    a.switch_page("embed.py")
    a.run()
    a.sidebar.selectbox(key="ds").set_value(key).run()
    assert a.session_state["ds"] == key and not a.error and figures(a)  # fitted, now cached

    def peek(key):
        import streamlit as st

        from metriclab.ui.shared import memo, session_data
        from metriclab.ui.shared.errors import guarded
        from metriclab.ui.shared.fit_request import DataRef, FitRequest, SplitRef

        data, split = DataRef(key), SplitRef("fraction", 0.1, 0)
        for fn, args in (
            (session_data.dataset, (key,)),
            (memo.view_data, (data,)),
            (memo.split, (data, split)),
            (memo.fit, (FitRequest(data, split, "pca"),)),
        ):
            if guarded(fn, *args) is not None:
                st.write(f"LEAK {fn.__name__}")

    b = AppTest.from_function(peek, args=(key,), default_timeout=TIMEOUT).run()
    assert not b.exception
    assert not [m.value for m in b.markdown if "LEAK" in m.value]
    assert len(b.error) == 4 and all("not available in this session" in e.value for e in b.error)


def test_share_by_link_opens_the_upload_in_another_session():
    a = session()
    key = upload(a, csv_rows(shift=5), "shared-a.csv")
    assert session("data", {"ds": key}).session_state["ds"] == "two_moons"
    a.button(key="share_upload").click().run()
    assert not a.exception
    assert any("Shared by link" in s.value for s in a.success)
    b = session("data", {"ds": key})
    assert not b.exception and not b.error and not warnings(b)
    assert b.session_state["ds"] == key
    assert b.subheader[0].value == "shared-a.csv"
    # another upload of A's, not shared, stays private
    other = upload(a, csv_rows(shift=6), "still-private.csv")
    c = session("data", {"ds": other})
    assert c.session_state["ds"] == "two_moons"


def test_uploads_per_session_are_bounded_oldest_dropped_with_a_notice(monkeypatch):
    from metriclab.ui.shared import session_data

    monkeypatch.setattr(session_data, "MAX_UPLOADS", 2)
    a = session()
    first = upload(a, csv_rows(shift=1), "one.csv")
    upload(a, csv_rows(shift=2), "two.csv")
    third = upload(a, csv_rows(shift=4), "three.csv")
    options = picker_options(a)
    uploads = [o for o in options if o.startswith("uploaded: ")]
    assert uploads == ["uploaded: two.csv", "uploaded: three.csv"]
    assert a.session_state["ds"] == third and first != third
    assert any("dropped the oldest: one.csv" in i.value for i in a.sidebar.info)


def test_uploads_per_session_are_bounded_in_bytes(monkeypatch):
    from metriclab.ui.shared import session_data

    monkeypatch.setattr(
        session_data, "MAX_UPLOAD_BYTES", 1000
    )  # 40 rows x 2 features: 960 B + labels
    a = session()
    a.sidebar.file_uploader(key="upload").set_value(("big.csv", csv_rows(200), "text/csv")).run()
    assert not a.exception
    assert any("at most 0 MB of uploads" in e.value or "MB" in e.value for e in a.sidebar.error)
    assert not any(o.startswith("uploaded: ") for o in picker_options(a))


def test_an_unused_upload_is_dropped_after_its_time_to_live(monkeypatch):
    from metriclab.ui.shared import session_data

    a = session()
    key = upload(a, csv_rows(shift=2), "short-lived.csv")
    monkeypatch.setattr(session_data, "UPLOAD_TTL_S", 0.2)
    time.sleep(0.3)
    a.sidebar.file_uploader(key="upload").set_value(None)
    a.run()
    assert key not in picker_options(a)


def test_a_shared_link_expires(monkeypatch):
    from metriclab.ui.shared import session_data

    now = [1000.0]
    monkeypatch.setattr(
        session_data, "SHARED", session_data.SharedUploads(ttl_s=60, clock=lambda: now[0])
    )
    a = session()
    key = upload(a, csv_rows(shift=3), "expiring.csv")
    a.button(key="share_upload").click().run()
    assert session("data", {"ds": key}).session_state["ds"] == key
    now[0] += 61
    late = session("data", {"ds": key})
    assert late.session_state["ds"] == "two_moons"
    assert "private to the session" in " ".join(warnings(late))


def test_the_shared_store_is_bounded_in_bytes_least_recently_used_out():
    from metriclab.datasets import Dataset
    from metriclab.ui.shared import session_data

    def data(name):
        return Dataset(np.zeros((100, 2)), np.arange(100) % 2, name, ["a", "b"], ["p", "q"])

    store = session_data.SharedUploads(max_bytes=2 * session_data.dataset_nbytes(data("x")))
    store.put("upload:1", data("one"))
    store.put("upload:2", data("two"))
    assert store.get("upload:1").name == "one"  # used: now the most recent
    store.put("upload:3", data("three"))
    assert "upload:2" not in store and "upload:1" in store and "upload:3" in store
    assert store.nbytes <= store.max_bytes
