"""The lecturer's rehearsal in a real browser: what only Chromium can show (a file the browser
refuses, a click before the page has finished its first run, every page run twice in two sessions)."""

import re

import pytest

from tests.test_browser_app import no_red_box, settled

pytestmark = pytest.mark.browser

BAD_CSV = b"a,b,label\n1,oops,0\n"
GOOD_CSV = b"a,b,label\n" + b"".join(f"{i},{i % 7},{i % 2}\n".encode() for i in range(40))


def upload(page, name, data):
    page.locator("input[type=file]").set_input_files(
        files=[{"name": name, "mimeType": "text/csv", "buffer": data}]
    )


def test_a_refused_oversize_file_takes_the_previous_files_error_away(page, app_url):
    page.goto(f"{app_url}/data?ds=iris")
    settled(page)
    limit_note = page.get_by_text(re.compile(r"at most 20 MB"))
    assert limit_note.is_visible()  # the limit in words, not only in a tooltip
    upload(page, "bad.csv", BAD_CSV)
    error = page.get_by_text("Could not read bad.csv")
    error.wait_for()
    refused = page.get_by_text("The browser refused the last file")
    assert not refused.is_visible()
    upload(page, "big.csv", b"a,b,label\n" + b"1.0,2.0,0\n" * (21 * 2**20 // 10))  # 21 MB
    refused.wait_for(state="visible")
    assert "larger than 20 MB" in refused.inner_text()
    assert not error.is_visible()  # was: bad.csv's error stayed on screen
    upload(page, "good.csv", GOOD_CSV)  # a good file after the refused one: its message shows
    page.get_by_text("Loaded good.csv").wait_for(state="visible")
    settled(page)
    assert not refused.is_visible() and not error.is_visible()
    no_red_box(page)
