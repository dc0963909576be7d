"""A sentence that speaks of a claim carries the claim's computed verdict (issue 39).

Prose in the README, the documentation, the reproduction notes, the lessons and the reproduction
modules' docstrings names a claim with a marker `[claim ID: VERDICT]` (or `[claim ID, READING:
VERDICT]` for one reading of the TDL paper). These tests fail when a marker's verdict is not the
one the rule computes from the committed tables, when a marker names no claim, and when a claim's
id is named without its marker, so a sentence cannot keep a verdict the tables no longer give.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from metriclab.reproduce import verdicts

ROOT = Path(__file__).resolve().parents[1]


def prose_files() -> list[Path]:
    files = [ROOT / "README.md"]
    files += sorted((ROOT / "docs" / "source").glob("*.rst"))
    files += sorted((ROOT / "docs" / "source" / "user_guide").glob("*.rst"))
    files += sorted((ROOT / "docs" / "reproduction").glob("*.md"))
    files += sorted((ROOT / "metriclab" / "ui" / "lessons").glob("*.toml"))
    files += sorted((ROOT / "metriclab" / "reproduce").glob("*.py"))
    files += sorted((ROOT / "metriclab" / "methods").glob("*.py"))
    return [f for f in files if f.exists()]


def prose(path: Path) -> str:
    """The text of `path` that is prose: a module's docstring, a README without its generated
    claims table, a file whole."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return ast.get_docstring(ast.parse(text)) or ""
    if verdicts.BEGIN in text and verdicts.END in text:
        text = text[: text.index(verdicts.BEGIN)] + text[text.index(verdicts.END) :]
    return text


@pytest.fixture(scope="module")
def computed():
    return verdicts.evaluate_all()


def test_every_claim_marker_in_the_prose_carries_the_computed_verdict(computed):
    problems = []
    for path in prose_files():
        problems += verdicts.check_prose(prose(path), computed, str(path.relative_to(ROOT)))
    assert not problems, "\n".join(problems)


def test_the_prose_marks_the_claims_it_speaks_of():
    """The sentences corrected in issue 39 keep their markers (a marker removed with its sentence's
    caveat would let the sentence drift again)."""
    markers = {}
    for path in prose_files():
        for claim_id, reading, _ in verdicts.prose_markers(prose(path)):
            markers.setdefault(str(path.relative_to(ROOT)), set()).add((claim_id, reading))
    expected = {
        "README.md": {("tdl-fig1", "symmetric"), ("tdl-table1-some-cases", None)},
        "docs/reproduction/README.md": {
            ("tdl-table2-levels", None),
            ("tdl-table2-tangent-levels", None),
        },
        "metriclab/reproduce/tangent.py": {("mody-combined-10", None)},
        "metriclab/methods/spectral.py": {
            ("tdl-fig1", "symmetric"),
            ("tdl-table1-some-cases", None),
        },
        "metriclab/ui/lessons/mody.toml": {("mody-combined-10", None)},
        "metriclab/ui/lessons/zhang.toml": {("zhang-fig4", None)},
    }
    for where, wanted in expected.items():
        assert wanted <= markers.get(where, set()), (where, wanted - markers.get(where, set()))


def test_a_wrong_verdict_or_a_bare_claim_id_is_caught(computed):
    """The check itself: a marker with the wrong word, an unknown id, an unknown reading and a
    claim named without a marker are each reported."""
    v = {x.id: x for x in computed}
    wrong = "no" if v["mody-combined-10"].word != "no" else "yes"
    text = (
        f"The thesis' gain holds [claim mody-combined-10: {wrong}]. "
        "[claim no-such-claim: yes] [claim tdl-fig1, sideways: no] "
        "As mody-k1 shows, k = 1 is best."
    )
    problems = verdicts.check_prose(text, computed, "t")
    assert len(problems) == 4, problems
    assert any("mody-combined-10" in p and "gives" in p for p in problems)
    assert any("mody-k1 named without" in p for p in problems)
    right = f"[claim mody-combined-10: {v['mody-combined-10'].word}]"
    assert verdicts.check_prose(right, computed, "t") == []
