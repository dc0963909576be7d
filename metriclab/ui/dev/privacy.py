"""What a served app tells the browser about usage statistics and the Deploy button (issue 38).

`served_privacy(page, url)` opens the app in a Playwright page and returns the configuration the
server sent (the NewSession message on the app's websocket: `gather_usage_stats`,
`toolbar_mode`), whether a Deploy button is drawn, and every request the page made to another
host. Used by tests/test_browser_streamlit_config.py (`make run` and `metriclab app` from a
checkout) and tools/check_installed.py (`metriclab app` from the installed wheel).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlparse

DEPLOY_BUTTON = "[data-testid='stAppDeployButton']"
MAIN_MENU = "[data-testid='stMainMenu']"


@dataclass
class ServedPrivacy:
    gather_usage_stats: bool | None = None  # as sent to the browser in NewSession
    toolbar_mode: str | None = None  # AUTO, DEVELOPER, VIEWER or MINIMAL
    deploy_buttons: int = 0
    outside_requests: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        """What is wrong for a classroom server that sends nothing anywhere ([] when nothing)."""
        out = []
        if self.gather_usage_stats is None:
            out.append("no NewSession message seen on the app's websocket")
        elif self.gather_usage_stats:
            out.append(f"usage statistics: gatherUsageStats = {self.gather_usage_stats}")
        if self.toolbar_mode not in ("VIEWER", "MINIMAL"):
            out.append(f"toolbarMode = {self.toolbar_mode} (developer options shown)")
        if self.deploy_buttons:
            out.append("a Deploy button is drawn")
        if self.outside_requests:
            out.append(f"requests to other hosts: {self.outside_requests}")
        return out


def served_privacy(page, url: str) -> ServedPrivacy:
    """Open `url` in `page` (a fresh Playwright page) and read what the server sent."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.proto.NewSession_pb2 import Config

    from metriclab.ui.dev.server import wait_idle

    result = ServedPrivacy()
    own_host = urlparse(url).hostname

    def on_frame(payload):
        if not isinstance(payload, bytes | bytearray):
            return
        try:
            message = ForwardMsg.FromString(bytes(payload))
        except Exception:  # noqa: BLE001 - not a ForwardMsg: not ours to read
            return
        if message.WhichOneof("type") == "new_session":
            config = message.new_session.config
            result.gather_usage_stats = bool(config.gather_usage_stats)
            result.toolbar_mode = Config.ToolbarMode.Name(config.toolbar_mode)

    def on_request(request):
        parsed = urlparse(request.url)
        if parsed.scheme in ("http", "https", "ws", "wss") and parsed.hostname != own_host:
            result.outside_requests.append(request.url)

    page.on("websocket", lambda ws: ws.on("framereceived", on_frame))
    page.on("request", on_request)
    page.goto(url)
    wait_idle(page)
    page.wait_for_selector(MAIN_MENU)  # the toolbar is drawn (where a Deploy button would be)
    result.deploy_buttons = page.locator(DEPLOY_BUTTON).count()
    return result
