"""A light Streamlit client without a renderer: one browser tab's protocol over the app's websocket.

What a browser tab does, message for message (Streamlit 1.67, captured from Chromium's frames):

1. `GET /_stcore/health`: sets the `_streamlit_xsrf` cookie.
2. Open the websocket `/_stcore/stream` with the subprotocols `streamlit, <xsrf cookie>`.
3. Send a `BackMsg.rerun_script` (a `ClientState`: query string, page name = the URL path, no
   widget states). The server answers with ForwardMsgs: `new_session` (session id, page script
   hash; with `st.navigation` the page's own hash comes in `navigation`), `delta`s (elements, each at a `delta_path`, tagged with the fragment that drew it),
   `page_info_changed` (the URL's new query string), and `script_finished` (0: finished,
   2: stopped early for a rerun — another run follows, 3: a fragment's run finished).
4. A widget change sends `rerun_script` again, with the widget's new state (a select-slider's
   value is its option text), the page script hash, and the widget's `fragment_id` when it lives
   in an `st.fragment` (then only the fragment reruns).
5. An upload: `BackMsg.file_urls_request` → `ForwardMsg.file_urls_response` (a file id and an
   upload URL), `PUT` the file as multipart form data to `/_stcore/upload_file/<session>/<file>`
   with the `X-Xsrftoken` header, then `rerun_script` with the file uploader's
   `file_uploader_state_value`.

The browser also reports the hashes of messages it has cached (`cached_message_hashes`) so the
server may send a reference instead of a repeated message; this client reports none, so it always
receives whole messages (slightly more bytes, the same server work).

`websockets` and `requests` come with Streamlit; the messages are Streamlit's own protobufs.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlparse

import numpy as np
import requests
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

XSRF_COOKIE = "_streamlit_xsrf"
FINISHED = {
    ForwardMsg.FINISHED_SUCCESSFULLY,
    ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
}
CONTEXT = {
    "timezone": "UTC",
    "timezone_offset": 0,
    "locale": "en-US",
    "is_embedded": False,
    "color_scheme": "light",
}


class ProtocolError(RuntimeError):
    """The server did not answer as a browser would expect (a timeout, an error, a closed socket)."""


@dataclass
class Widget:
    """The latest proto of a widget element, the fragment that drew it, and this tab's value."""

    kind: str  # "slider", "selectbox", ...
    proto: object
    fragment_id: str
    value: object = None


@dataclass
class Run:
    """What one script run sent: the time each message arrived (perf_counter) and its contents."""

    started: float
    charts: dict[str, tuple[float, str]] = field(default_factory=dict)  # key -> (time, spec)
    alerts: list[tuple[int, str]] = field(default_factory=list)  # (Alert.Format, body)
    exceptions: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # markdown and captions, as sent
    progress: list[tuple[float, str]] = field(default_factory=list)  # (time, a progress bar's text)
    finished_at: float | None = None
    status: int | None = None

    @property
    def errors(self) -> list[str]:
        """Tracebacks and red error boxes this run drew."""
        return self.exceptions + [body for fmt, body in self.alerts if fmt == 1]


def widget_key(element_id: str) -> str | None:
    """The user key of a keyed widget: Streamlit's ids end in `-<key>` (`$$ID-<hash>-p.tdl.lam`)."""
    if not element_id.startswith("$$ID-"):
        return None
    parts = element_id.split("-", 2)
    return parts[2] if len(parts) == 3 and parts[2] != "None" else None


def _values(array) -> list:
    """A Plotly JSON array: a list, or a typed array `{"dtype": "f8", "bdata": <base64>}`."""
    if isinstance(array, dict) and "bdata" in array:
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return list(array or [])


def chart_points(spec: str) -> list[tuple[list, list]]:
    """Each trace's x and y values in a Plotly figure's JSON spec (what the chart shows)."""
    data = json.loads(spec).get("data", [])
    return [(_values(trace.get("x")), _values(trace.get("y"))) for trace in data]


class StreamlitTab:
    """One session of the app over its websocket; create with `await StreamlitTab.open(...)`."""

    def __init__(self, base: str):
        self.base = base.rstrip("/")
        self.http = requests.Session()
        self.ws = None
        self.session_id = ""
        self.page_script_hash = ""
        self.page_name = ""
        self.query_string = ""
        self.widgets: dict[str, Widget] = {}  # by widget key
        self.charts: dict[str, str] = {}  # plotly chart key -> latest spec
        self._inbox: asyncio.Queue = asyncio.Queue()
        self._reader: asyncio.Task | None = None
        self._file_urls: dict[str, asyncio.Future] = {}
        self.first_run: Run | None = None  # the page's first run, as `open` waited for it

    @classmethod
    async def open(cls, base: str, page: str, query: dict | str = "", timeout: float = 120.0):
        """Connect as a browser tab opening `base/page?query`, and wait for the page's first run."""
        from websockets.asyncio.client import connect

        tab = cls(base)
        await asyncio.to_thread(tab.http.get, f"{tab.base}/_stcore/health", timeout=timeout)
        xsrf = tab.http.cookies.get(XSRF_COOKIE, "")
        host = urlparse(tab.base).netloc
        # every cookie, as a browser sends them: behind a load balancer its sticky-session cookie
        # (set on the health check) takes the websocket to the process that set the XSRF one
        cookies = "; ".join(f"{c.name}={c.value}" for c in tab.http.cookies)
        tab.ws = await connect(
            f"ws://{host}/_stcore/stream",
            subprotocols=["streamlit", xsrf] if xsrf else ["streamlit"],
            additional_headers={"Cookie": cookies} if cookies else None,
            origin=tab.base,
            max_size=None,
            open_timeout=timeout,
        )
        tab._reader = asyncio.create_task(tab._read())
        tab.first_run = await tab.goto(page, query, timeout=timeout)
        return tab

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - closing anyway
                pass
        self.http.close()

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                now = time.perf_counter()
                msg = ForwardMsg()
                msg.ParseFromString(frame)
                if msg.WhichOneof("type") == "file_urls_response":
                    future = self._file_urls.pop(msg.file_urls_response.response_id, None)
                    if future is not None and not future.done():
                        future.set_result(msg.file_urls_response)
                    continue
                await self._inbox.put((now, msg))
        finally:
            await self._inbox.put((time.perf_counter(), None))  # the socket closed

    def _client_state(self, widget_states=(), fragment_id: str = "") -> BackMsg:
        back = BackMsg()
        state = back.rerun_script
        state.query_string = self.query_string
        state.page_name = self.page_name
        state.page_script_hash = self.page_script_hash
        state.fragment_id = fragment_id
        for widget_state in widget_states:
            state.widget_states.widgets.append(widget_state)
        context = state.context_info
        for name, value in CONTEXT.items():
            setattr(context, name, value)
        context.url = f"{self.base}/{self.page_name}"
        return back

    async def goto(self, page: str, query: dict | str = "", timeout: float = 120.0) -> Run:
        """Open another page in this session (as the sidebar's page links do)."""
        self.page_name = page
        self.page_script_hash = ""
        self.query_string = query if isinstance(query, str) else urlencode(query)
        started = time.perf_counter()
        await self.ws.send(self._client_state().SerializeToString())
        return await self.wait_run(started, timeout)

    async def wait_run(self, started: float, timeout: float) -> Run:
        """Collect the server's messages until a run finishes (a run stopped early for a rerun is
        followed by the rerun; its elements count too)."""
        run = Run(started)
        deadline = started + timeout
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise ProtocolError(f"no end of the script run within {timeout:.0f} s")
            try:
                at, msg = await asyncio.wait_for(self._inbox.get(), remaining)
            except TimeoutError:
                raise ProtocolError(f"no end of the script run within {timeout:.0f} s") from None
            if msg is None:
                raise ProtocolError("the server closed the websocket")
            kind = msg.WhichOneof("type")
            if kind == "new_session":
                self.page_script_hash = msg.new_session.page_script_hash
                if msg.new_session.initialize.session_id:
                    self.session_id = msg.new_session.initialize.session_id
            elif kind == "navigation":  # st.navigation names the page that runs
                self.page_script_hash = msg.navigation.page_script_hash
            elif kind == "page_info_changed":
                self.query_string = msg.page_info_changed.query_string
            elif kind == "delta":
                self._apply_delta(msg.delta, at, run)
            elif kind == "script_finished":
                if msg.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue
                run.finished_at, run.status = at, msg.script_finished
                if msg.script_finished not in FINISHED:
                    raise ProtocolError(f"script finished with status {msg.script_finished}")
                return run

    def _apply_delta(self, delta, at: float, run: Run) -> None:
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        if kind is None:
            return
        proto = getattr(element, kind)
        if kind == "alert":
            run.alerts.append((proto.format, proto.body))
        elif kind == "markdown":
            run.texts.append(proto.body)
        elif kind == "progress" and proto.text:
            run.progress.append((at, proto.text))
        elif kind == "exception":
            run.exceptions.append(f"{proto.type}: {proto.message}")
        key = widget_key(getattr(proto, "id", "") or "")
        if key is None:
            return
        if kind == "plotly_chart":
            self.charts[key] = proto.spec
            run.charts[key] = (at, proto.spec)
            return
        widget = self.widgets.get(key)
        if widget is None or widget.proto.id != proto.id:
            widget = self.widgets[key] = Widget(kind, proto, delta.fragment_id)
        widget.proto, widget.fragment_id = proto, delta.fragment_id
        if kind == "slider" and proto.set_value:  # the server set the value (first draw, reset)
            widget.value = proto.raw_value[0] if len(proto.raw_value) == 1 else None

    def options(self, key: str) -> list[str]:
        """A select-slider's options, as shown."""
        return list(self.widgets[key].proto.options)

    def value(self, key: str) -> str:
        """A select-slider's current value (option text) in this tab."""
        widget = self.widgets[key]
        if widget.value is None:
            proto = widget.proto
            widget.value = proto.options[int(proto.default[0])]
        return widget.value

    async def set_select_slider(self, key: str, option: str, timeout: float = 15.0) -> Run:
        """Move a select-slider to `option`, as the browser does on a key press or a drag; returns
        the rerun's messages with their arrival times (`Run.started` is the send)."""
        widget = self.widgets[key]
        if widget.kind != "slider" or option not in widget.proto.options:
            raise ValueError(f"{key} is not a select-slider with option {option!r}")
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        state = WidgetState(id=widget.proto.id)
        state.string_array_value.data.append(option)
        widget.value = option
        started = time.perf_counter()
        await self.ws.send(self._client_state([state], widget.fragment_id).SerializeToString())
        return await self.wait_run(started, timeout)

    async def upload(
        self, key: str, name: str, data: bytes, mime: str = "text/csv", timeout: float = 60.0
    ) -> Run:
        """Upload a file through the file uploader `key`, as the browser does; returns the run that
        read it."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        widget = self.widgets[key]
        request_id = str(uuid.uuid4())
        future = asyncio.get_running_loop().create_future()
        self._file_urls[request_id] = future
        back = BackMsg()
        back.file_urls_request.request_id = request_id
        back.file_urls_request.file_names.append(name)
        back.file_urls_request.session_id = self.session_id
        await self.ws.send(back.SerializeToString())
        response = await asyncio.wait_for(future, timeout)
        if response.error_msg:
            raise ProtocolError(f"upload refused: {response.error_msg}")
        urls = response.file_urls[0]
        reply = await asyncio.to_thread(
            self.http.put,
            f"{self.base}{urls.upload_url}",
            files={"file": (name, data, mime)},
            headers={"X-Xsrftoken": self.http.cookies.get(XSRF_COOKIE, "")},
            timeout=timeout,
        )
        if reply.status_code >= 300:
            raise ProtocolError(f"upload PUT answered {reply.status_code}: {reply.text[:200]}")
        state = WidgetState(id=widget.proto.id)
        info = state.file_uploader_state_value.uploaded_file_info.add()
        info.name, info.size, info.file_id = name, len(data), urls.file_id
        info.file_urls.CopyFrom(urls)
        started = time.perf_counter()
        await self.ws.send(self._client_state([state], widget.fragment_id).SerializeToString())
        return await self.wait_run(started, timeout)
