"""The load bench's websocket client (bench/stream_client.py) speaks Streamlit's protocol for real:
against the served app it drives a fragment rerun whose chart changes, and uploads a file the way
the browser does. No timing is asserted (the bench measures; this proves what it measures)."""

import asyncio
import importlib.util
import sys
from pathlib import Path

import pandas as pd
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

BENCH = Path(__file__).resolve().parents[1] / "bench" / "stream_client.py"
_spec = importlib.util.spec_from_file_location("stream_client", BENCH)
stream_client = sys.modules.setdefault("stream_client", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(stream_client)

EMBED = {"ds": "two_moons", "method": "tdl", "seed": 0}
LAM = "p.tdl.lam"


def test_a_slider_move_reruns_the_fragment_and_changes_the_chart(app_url):
    async def scenario():
        tab = await stream_client.StreamlitTab.open(app_url, "embed", EMBED)
        try:
            first = stream_client.chart_points(tab.charts["embedding"])
            options = tab.options(LAM)
            start = tab.value(LAM)
            moved = options[options.index(start) + 1]
            run = await tab.set_select_slider(LAM, moved)
            moved_query = tab.query_string
            back = await tab.set_select_slider(LAM, start)
            return first, start, moved, run, moved_query, back, tab.query_string
        finally:
            await tab.close()

    first, start, moved, run, moved_query, back, back_query = asyncio.run(scenario())
    n_points = sum(len(x) for x, _ in first if None not in x)  # not the legend's dummy trace
    assert n_points == 200  # two moons: every point drawn
    # only the live-view fragment reran, and it sent a new chart with other data
    assert run.status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
    assert not run.errors
    after = stream_client.chart_points(run.charts["embedding"][1])
    assert sum(len(x) for x, _ in after if None not in x) == n_points
    assert after != first
    assert run.started < run.charts["embedding"][0] <= run.finished_at
    # the server took the value: the page published it in the URL, and moving back changes again
    assert f"{LAM}={moved}" in moved_query.split("&")
    assert stream_client.chart_points(back.charts["embedding"][1]) != after
    assert f"{LAM}={start}" in back_query.split("&")


def test_an_upload_goes_through_the_upload_endpoint_into_this_session_only(app_url):
    frame = pd.DataFrame({"a": [0.0, 0.1, 1.0, 1.1, 2.0, 2.2], "b": [1, 0, 1, 0, 1, 0]})
    frame["label"] = [0, 0, 1, 1, 2, 2]
    data = frame.to_csv(index=False).encode()

    async def scenario():
        tab = await stream_client.StreamlitTab.open(app_url, "data")
        other = None
        try:
            run = await tab.upload("upload", "six.csv", data)
            key = dict(q.split("=", 1) for q in tab.query_string.split("&"))["ds"]
            other = await stream_client.StreamlitTab.open(app_url, "data", {"ds": key})
            return run, tab.charts, key, other.query_string
        finally:
            await tab.close()
            if other is not None:
                await other.close()

    run, charts, key, other_query = asyncio.run(scenario())
    assert (4, "Loaded six.csv") in run.alerts  # 4: st.success
    assert key.startswith("upload%3A")
    pca = stream_client.chart_points(charts["pca_scatter"])
    assert sum(len(x) for x, _ in pca if None not in x) == len(frame)
    # another session given the link does not get the data set
    assert "ds=upload" not in other_query
