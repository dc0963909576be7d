"""The sample_data/ build tool (tools/build_sample_data.py, not part of the installed package): its
helpers, a network-free rebuild that must give byte-identical files, and `python -m metriclab data
build` finding it from a checkout and saying what to do where it is absent."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

import metriclab.__main__ as cli
from metriclab.datasets import names
from metriclab.datasets.core import CATALOG, SAMPLE_DATA
from tools import build_sample_data as data_build

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", names("file", include_unlisted=True))
def test_shipped_files_use_the_smallest_exact_dtype(name):
    catalog = json.loads(CATALOG.read_text())
    with np.load(SAMPLE_DATA / catalog[name]["file"], allow_pickle=False) as npz:
        X = npz["X"]
    assert data_build.smallest_exact_dtype(X) == X.dtype


def test_data_build_runs_the_tool_from_a_checkout():
    """An unknown name reaches the tool (found next to the package), which refuses it clearly."""
    done = subprocess.run(
        [sys.executable, "-m", "metriclab", "data", "build", "no_such_set"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 2
    assert "no builder for ['no_such_set']" in done.stderr
    assert "Traceback" not in done.stderr


def test_data_build_without_the_tool_says_what_to_do(monkeypatch, tmp_path, capsys):
    """As in an installed wheel: no tools/ beside the package. `data list` does not need it."""
    monkeypatch.setattr(cli, "BUILD_TOOL", tmp_path / "tools" / "build_sample_data.py")
    assert cli.main(["data", "build"]) == 2
    err = capsys.readouterr().err
    assert "source checkout" in err and "build_sample_data.py" in err
    assert cli.main(["data", "list"]) == 0
    assert "iris" in capsys.readouterr().out


def test_smallest_exact_dtype():
    assert data_build.smallest_exact_dtype(np.array([0.0, 255.0])) == np.uint8
    assert data_build.smallest_exact_dtype(np.array([-1.0, 100.0])) == np.int8
    assert data_build.smallest_exact_dtype(np.array([-469.0, 300.0])) == np.int16
    assert data_build.smallest_exact_dtype(np.array([0.5, 0.25])) == np.float32
    assert data_build.smallest_exact_dtype(np.array([0.1, 5.1])) == np.float64


def test_encode_labels_uses_the_given_order():
    y, classes = data_build.encode_labels(["b", "a", "b"], ["b", "a"])
    assert y.tolist() == [0, 1, 0] and classes == ["b", "a"]
    with pytest.raises(ValueError, match="not in the class order"):
        data_build.encode_labels(["c"], ["a", "b"])


def test_rebuilding_the_scikit_learn_sets_gives_identical_files(tmp_path):
    # The network-free part of `python -m metriclab data build`: byte-identical output.
    data_build.build(["iris", "wine", "wdbc", "digits", "balance"], out_dir=tmp_path)
    for name in ["iris", "wine", "wdbc", "digits", "balance"]:
        assert (tmp_path / f"{name}.npz").read_bytes() == (SAMPLE_DATA / f"{name}.npz").read_bytes()
    rebuilt = json.loads((tmp_path / "catalog.json").read_text())
    shipped = json.loads(CATALOG.read_text())
    for name in rebuilt:  # the source names the scikit-learn version, which may differ
        assert {k: v for k, v in rebuilt[name].items() if k != "source"} == {
            k: v for k, v in shipped[name].items() if k != "source"
        }


def test_write_npz_is_deterministic_and_pickle_free(tmp_path):
    arrays = {"X": np.arange(6, dtype=np.uint8).reshape(2, 3), "names": np.array(["a", "b"])}
    data_build.write_npz(tmp_path / "a.npz", arrays)
    data_build.write_npz(tmp_path / "b.npz", arrays)
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    with zipfile.ZipFile(tmp_path / "a.npz") as zf:
        assert {i.date_time for i in zf.infolist()} == {data_build.ZIP_DATE}
    with np.load(tmp_path / "a.npz", allow_pickle=False) as npz:
        np.testing.assert_array_equal(npz["X"], arrays["X"])


def test_write_dataset_rejects_bad_records(tmp_path):
    def record(**changes):
        fields = dict(
            name="t",
            X=np.array([[0.0], [1.0]]),
            y=np.array([0, 1]),
            feature_names=["f"],
            target_names=["a", "b"],
            description="d",
            source="s",
            licence="l",
            summary="short",
        )
        fields.update(changes)
        return data_build.Built(**fields)

    assert data_build.write_dataset(record(), tmp_path)["class_counts"] == {"a": 1, "b": 1}
    with pytest.raises(ValueError, match="non-finite"):
        data_build.write_dataset(record(X=np.array([[0.0], [np.nan]])), tmp_path)
    with pytest.raises(ValueError, match="every class present"):
        data_build.write_dataset(record(y=np.array([0, 0])), tmp_path)
    with pytest.raises(ValueError, match="60 characters"):
        data_build.write_dataset(record(summary="x" * 61), tmp_path)


def test_read_keel(tmp_path):
    path = tmp_path / "toy.dat"
    path.write_text(
        "@relation toy\n@attribute Mcg real [0.1, 1.0]\n@attribute Gvh real [0.1, 1.0]\n"
        "@attribute Class {positive, negative}\n@inputs Mcg, Gvh\n@outputs Class\n@data\n"
        "0.58, 0.61, negative\n0.43, 0.67, positive\n"
    )
    names_, X, y = data_build.read_keel(Path(path))
    assert names_ == ["Mcg", "Gvh"]
    np.testing.assert_array_equal(X, [[0.58, 0.61], [0.43, 0.67]])
    assert y.tolist() == ["negative", "positive"]
