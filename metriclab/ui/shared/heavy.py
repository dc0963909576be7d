"""At most one full-size fit at a time per server (issue 26).

A fit of all 70,000 MNIST digits takes both cores for tens of seconds; two at once would only
make both slower and double the memory. `slot(report)` waits its turn in a process-wide queue,
telling the session its place ("queued behind 1 fit") through `report`, and holds the slot while
the fit runs. A session that leaves (its script run is stopped) or reruns while waiting gives its
place up: the wait is a loop of short sleeps that reports on every turn, so the stop Streamlit
raises in a stopped run comes inside it, and removes the ticket on the way out.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager

POLL_S = 0.25

_lock = threading.Lock()  # guards _queue
_queue: list[int] = []  # tickets in arrival order; the first one runs
_tickets = itertools.count()


def waiting() -> int:
    """Fits queued or running now."""
    with _lock:
        return len(_queue)


@contextmanager
def slot(report: Callable[[str], None] | None = None, sleep: Callable[[float], None] = time.sleep):
    """Wait for the full-size slot (reporting the place in the queue), then hold it."""
    ticket = next(_tickets)
    with _lock:
        _queue.append(ticket)
    try:
        while True:
            with _lock:
                place = _queue.index(ticket)
            if place == 0:
                break
            if report is not None:  # every poll: a stopped session's run ends here
                report(f"queued behind {place} fit{'s' if place > 1 else ''} of another session")
            sleep(POLL_S)
        yield
    finally:
        with _lock:
            if ticket in _queue:
                _queue.remove(ticket)
