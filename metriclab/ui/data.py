"""CSV uploads on the Data page: parse with `metriclab.datasets.load_csv`, report problems with
st.error, keep the data set in this session only, and share it by link on request."""

from __future__ import annotations

import streamlit as st

from metriclab.ui.shared import session_data as cache

# The browser refuses a file over server.maxUploadSize before it reaches the app, so no script run
# follows and the server cannot take back the message it drew about the previous file. This watch
# runs in the page: while the newest file in the upload box is a refused one (its chip is marked
# aria-invalid), the previous file's message is hidden and a note saying why is shown instead.
REFUSED_WATCH = """
<style>
  .metriclab-refused { display: none; }
  body.metriclab-upload-refused .metriclab-refused {
    display: block; padding: 0.75rem 1rem; border-radius: 0.5rem;
    background: rgba(255, 189, 69, 0.15); color: rgb(146, 108, 5);
  }
  body.metriclab-upload-refused .st-key-upload_feedback { display: none; }
</style>
<div class="metriclab-refused" role="alert">{note}</div>
<script>
(() => {
  if (window.metriclabUploadWatch) return;
  window.metriclabUploadWatch = true;
  const check = () => {
    const chips = document.querySelectorAll('.st-key-upload [data-testid="stFileChip"]');
    const newest = chips.length ? chips[chips.length - 1] : null;
    const refused = !!newest && newest.getAttribute("aria-invalid") === "true";
    if (document.body.classList.contains("metriclab-upload-refused") !== refused) {
      document.body.classList.toggle("metriclab-upload-refused", refused);
    }
  };
  new MutationObserver(check).observe(document.body, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["aria-invalid"],
  });
  check();
})();
</script>
"""


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


def upload_box() -> str | None:
    """The Data page's upload box: the size limit in words, the file box, the label column and one
    message about the newest file (loaded, or why not). Returns the key of a newly loaded upload."""
    limit = st.get_option("server.maxUploadSize")
    st.caption(
        f"A CSV with a header row, numeric features and one label column; at most **{limit} MB** "
        "(the browser refuses larger files before they reach the app; a .csv.gz is accepted). "
        "An upload lives in this browser tab's session: a reload or a new tab starts without it "
        "(Share by link keeps it reachable for 24 h)."
    )
    upload = st.file_uploader(
        f"CSV file (up to {limit} MB)", type=["csv", "gz", "txt"], key="upload"
    )
    label_column = st.text_input("Label column (empty = last)", key="label_column") or None
    feedback = st.container(key="upload_feedback")
    note = (
        f"The browser refused the last file: it is larger than {limit} MB, so it never reached the "
        "app and the data set shown has not changed. Compress it (.csv.gz) or keep fewer rows."
    )  # drawn by the page itself (hidden until a refusal), not an element of the script run
    st.html(REFUSED_WATCH.replace("{note}", note), unsafe_allow_javascript=True)
    if upload is None:
        return None
    done = (upload.file_id, label_column)
    if st.session_state.get("_upload_done") == done:
        return None
    with feedback:
        key = handle_upload(upload.getvalue(), upload.name, label_column)
        if key is None:
            return None
        st.session_state["_upload_done"] = done
        st.success(f"Loaded {upload.name}")
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
