"""The claims table's verdicts follow one rule, computed from the committed tables (issue 32)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metriclab.reproduce import verdicts
from metriclab.reproduce.verdicts import Tables, evaluate, mcnemar_p, outcome, paired_p


def _write(tmp_path, name, rows, splits=None):
    """A committed table `name` with rows (setting, method, paper, values[, paper_std])."""
    records, long = [], []
    for setting, method, paper, values, *rest in rows:
        v = np.atleast_1d(np.asarray(values, dtype=float))
        one_split = len(rest) > 1 and rest[1] == "per_image"
        records.append(
            {
                "setting": setting,
                "method": method,
                "metric": "accuracy %",
                "paper": paper,
                "ours_mean": v.mean(),
                "ours_std": v.std(ddof=1) if v.size > 1 and not one_split else np.nan,
                "n_splits": 1 if one_split else v.size,
                "protocol": "p",
                "note": "",
                "paper_std": rest[0] if rest else np.nan,
            }
        )
        long += [
            {"setting": setting, "method": method, "split": i, "value": x} for i, x in enumerate(v)
        ]
    pd.DataFrame(records).to_csv(tmp_path / f"{name}.csv", index=False)
    (tmp_path / "splits").mkdir(exist_ok=True)
    pd.DataFrame(long).to_csv(tmp_path / "splits" / f"{name}.csv.gz", index=False)
    return Tables(tmp_path)


RNG = np.random.default_rng(0)
BASE = RNG.normal(80, 2, 20)


def _claim(rule, **fields):
    return {"id": "c", "paper": "tdl", "where": "w", "quote": "q", "rule": rule, **fields}


def test_direction_holds_only_when_the_sign_is_right_and_the_paired_test_rejects(tmp_path):
    tables = _write(
        tmp_path,
        "t",
        [
            ("s", "A", np.nan, BASE + 1.0 + RNG.normal(0, 0.1, 20)),  # clearly above B
            ("s", "B", np.nan, BASE),
            ("s", "C", np.nan, BASE + RNG.normal(0, 1.0, 20)),  # level with B: noise only
        ],
    )

    def verdict(better, worse):
        part = {"setting": "s", "better": better, "worse": worse}
        return evaluate(_claim("direction", table="t", parts=[part]), tables)

    assert verdict("A", "B").word == "yes"
    assert verdict("B", "A").word == "no"  # the wrong direction
    assert verdict("C", "B").word == "no"  # not significant
    assert "p < 0.001" in verdict("A", "B").ours and "20 splits" in verdict("A", "B").ours


def test_same_holds_when_the_paired_test_finds_no_difference(tmp_path):
    tables = _write(
        tmp_path, "t", [("s", "A", np.nan, BASE + 1.0), ("s", "B", np.nan, BASE), ("s", "C", np.nan, BASE + RNG.normal(0, 1, 20))]
    )  # fmt: skip
    same = _claim("same", table="t", parts=[{"setting": "s", "better": "C", "worse": "B"}])
    differ = _claim("same", table="t", parts=[{"setting": "s", "better": "A", "worse": "B"}])
    assert evaluate(same, tables).word == "yes"
    assert evaluate(differ, tables).word == "no"


def test_one_split_is_tested_image_by_image_with_mcnemar(tmp_path):
    wrong_a = np.zeros(500)
    wrong_b = np.zeros(500)
    wrong_b[:30] = 100.0  # B gets 30 images wrong that A gets right
    wrong_a[30:34] = 100.0  # A gets 4 that B gets right
    tables = _write(
        tmp_path,
        "t",
        [("s", "A", np.nan, wrong_a, np.nan, "per_image"), ("s", "B", np.nan, wrong_b, np.nan, "per_image")],
    )  # fmt: skip
    claim = _claim(
        "direction", table="t", lower_is_better=True, parts=[{"setting": "s", "better": "A", "worse": "B"}]
    )  # fmt: skip
    v = evaluate(claim, tables)
    assert v.word == "yes" and "McNemar over 500 test images" in v.ours
    assert mcnemar_p(wrong_a, wrong_b) < 1e-4
    assert mcnemar_p(wrong_a[30:], wrong_b[30:]) > 0.05  # 4 against 0: not enough


def test_level_uses_the_papers_std_where_it_states_one(tmp_path):
    tables = _write(
        tmp_path,
        "t",
        [("s", "A", 0.90, RNG.normal(0.878, 0.02, 40), 0.01), ("s", "B", 0.90, RNG.normal(0.895, 0.02, 40), 0.01)],
    )  # fmt: skip
    a = evaluate(_claim("level", table="t", parts=[{"setting": "s", "method": "A"}]), tables)
    b = evaluate(_claim("level", table="t", parts=[{"setting": "s", "method": "B"}]), tables)
    assert a.word == "no" and "the paper's std" in a.ours  # 0.022 off: 2.2 of the paper's stds
    assert b.word == "yes"
    both = _claim("level", table="t", parts=[{"setting": "s", "method": m} for m in "AB"])
    assert evaluate(both, tables).word == "partly"


def test_count_needs_the_papers_wins_and_at_most_its_losses(tmp_path):
    rows = []
    for index, shift in enumerate((1.0, 1.0, 1.0, 0.0, -1.0)):  # 3 wins, 1 draw, 1 loss
        rows.append((f"set{index}", "K", 0.9, BASE / 100 + shift / 100 + RNG.normal(0, 1e-4, 20)))
        rows.append((f"set{index}", "L", 0.8, BASE / 100))
    tables = _write(tmp_path, "t", rows)
    pairs = [{"table": "t", "better": "K", "worse": "L"}]
    as_claimed = evaluate(_claim("count", claimed=[3, 1, 1], pairs=pairs), tables)
    more_claimed = evaluate(_claim("count", claimed=[5, 0, 0], pairs=pairs), tables)
    assert as_claimed.word == "yes" and "3 / 1 / 1 by the paired test" in as_claimed.ours
    assert more_claimed.word == "no"


def test_readings_give_the_verdict_of_the_first_and_list_the_others(tmp_path):
    tables = _write(
        tmp_path,
        "t",
        [
            ("s", "TDL", np.nan, BASE + 1),
            ("s", "Laplacian Eigenmaps", np.nan, BASE),
            ("s", "TDL [symmetric]", np.nan, BASE),
            ("s", "Laplacian Eigenmaps [symmetric]", np.nan, BASE),
        ],
    )
    part = {"setting": "s", "better": "TDL{r}", "worse": "Laplacian Eigenmaps{r}"}
    claim = _claim("direction", table="t", readings=["symmetric", "unnormalized"], parts=[part])
    v = evaluate(claim, tables)
    assert v.word == "no"  # the reading fixed before looking
    assert v.readings == {"symmetric": "no", "unnormalized": "yes"}
    assert "unnormalized: yes" in verdicts.verdict_cell(v)


def test_a_table_without_its_per_split_values_is_refused(tmp_path):
    _write(tmp_path, "t", [("s", "A", np.nan, BASE), ("s", "B", np.nan, BASE)])
    (tmp_path / "splits" / "t.csv.gz").unlink()
    claim = _claim("direction", table="t", parts=[{"setting": "s", "better": "A", "worse": "B"}])
    with pytest.raises(ValueError, match="no per-split values"):
        evaluate(claim, Tables(tmp_path))


def test_paired_tests_know_their_edge_cases():
    assert paired_p(BASE, BASE) == 1.0
    assert outcome([0.5], [0.4]) [0] == 1  # fmt: skip
    assert np.isnan(outcome([0.5], [0.4])[2])


def test_every_claim_has_a_verdict_from_the_committed_tables():
    results = verdicts.evaluate_all()
    assert len(results) == len(verdicts.claims())
    assert {v.word for v in results} <= set(verdicts.VERDICTS)
    for v in results:
        assert v.claim["paper"] in verdicts.PAPERS
        for name in v.claim.get("tables", []):
            assert (verdicts.DEFAULT_TABLES / f"{name}.csv").exists(), name


def test_the_readme_claims_table_is_what_the_rule_gives():
    """docs/reproduction/README.md's claims table is generated: regenerate it with
    `python -m metriclab claims --write` after a table changes."""
    readme = (verdicts.DEFAULT_TABLES / "README.md").read_text(encoding="utf-8")
    block = verdicts.markdown_table(verdicts.evaluate_all())
    assert block in readme, "stale claims table: run `python -m metriclab claims --write`"
    assert verdicts.RULE_TEXT in readme
