"""load_csv: good uploads parse correctly; each malformed upload gives a ValueError that says
what is wrong and where."""

from __future__ import annotations

import io

import numpy as np
import pytest

from metriclab.datasets import load_csv, upload

GOOD = b"x1,x2,species\n1,2.5,setosa\n3,4,virginica\n5,6,setosa\n7,8.25,virginica\n"


class FakeUploadedFile(io.BytesIO):
    """What Streamlit's file_uploader hands over: a BytesIO with a name and a size."""

    def __init__(self, data: bytes, name: str = "mine.csv"):
        super().__init__(data)
        self.name = name
        self.size = len(data)


# ---------------------------------------------------------------- good files


def test_string_labels_are_encoded_in_sorted_order():
    ds = load_csv(io.BytesIO(GOOD))
    np.testing.assert_array_equal(ds.X, [[1, 2.5], [3, 4], [5, 6], [7, 8.25]])
    assert ds.X.dtype == np.float64
    assert ds.y.tolist() == [0, 1, 0, 1]
    assert ds.target_names == ["setosa", "virginica"]
    assert ds.feature_names == ["x1", "x2"]
    assert ds.class_counts() == {"setosa": 2, "virginica": 2}


def test_label_column_chosen_by_name():
    data = b"label,a,b\ncat,1,5\ndog,2,7\ncat,3,1\ndog,4,0\n"
    ds = load_csv(io.BytesIO(data), label_column="label")
    assert ds.feature_names == ["a", "b"]
    np.testing.assert_array_equal(ds.X, [[1, 5], [2, 7], [3, 1], [4, 0]])
    assert ds.target_names == ["cat", "dog"] and ds.y.tolist() == [0, 1, 0, 1]


def test_numeric_labels_sort_numerically_and_keep_their_text():
    data = b"a,b,y\n1,2,10\n3,4,2\n5,6,10\n7,8,2\n9,1,-1\n0,3,-1\n"
    ds = load_csv(io.BytesIO(data))
    assert ds.target_names == ["-1", "2", "10"]
    assert ds.y.tolist() == [2, 1, 2, 1, 0, 0]


def test_path_text_bytes_and_uploaded_file_give_the_same_data(tmp_path):
    path = tmp_path / "flowers.csv"
    path.write_bytes(GOOD)
    from_path = load_csv(path)
    assert from_path.name == "flowers"
    for source in (
        str(path),
        io.StringIO(GOOD.decode()),
        GOOD,
        FakeUploadedFile(GOOD),
    ):
        ds = load_csv(source)
        np.testing.assert_array_equal(ds.X, from_path.X)
        np.testing.assert_array_equal(ds.y, from_path.y)


def test_uploaded_file_can_be_read_again_on_a_rerun():
    f = FakeUploadedFile(GOOD, name="again.csv")
    first, second = load_csv(f), load_csv(f)
    assert first.name == "again" and np.array_equal(first.X, second.X)


def test_tolerated_formatting():
    # UTF-8 BOM, Windows line ends, spaces after commas, quoted names, blank lines.
    data = b'\xef\xbb\xbfx 1, "x,2", label\r\n1, 2, "a b"\r\n\r\n3, 4,b\r\n5,6, "a b"\r\n7,8,b\r\n'
    ds = load_csv(io.BytesIO(data))
    assert ds.feature_names == ["x 1", "x,2"]
    assert ds.target_names == ["a b", "b"]
    np.testing.assert_array_equal(ds.X[:, 0], [1, 3, 5, 7])


def test_iris_round_trip(tmp_path):
    from metriclab.datasets import load

    iris = load("iris")
    lines = [",".join(iris.feature_names + ["species"])]
    lines += [
        ",".join([*map(repr, row), iris.target_names[c]])
        for row, c in zip(iris.X.tolist(), iris.y, strict=True)
    ]
    path = tmp_path / "iris.csv"
    path.write_text("\n".join(lines) + "\n")
    ds = load_csv(path)
    np.testing.assert_array_equal(ds.X, iris.X)
    np.testing.assert_array_equal(ds.y, iris.y)
    assert ds.target_names == iris.target_names


# ---------------------------------------------------------------- malformed files

MALFORMED = {
    "empty": (b"", r"the file is empty"),
    "only whitespace": (b"\n \n\t\n", r"the file is empty"),
    "header only": (b"x1,x2,label\n", r"header but no data rows"),
    "no header": (b"1,2,0\n3,4,1\n5,6,0\n7,8,1\n", r"looks like data, not a header"),
    "wrong delimiter": (b"x1;x2;label\n1;2;a\n3;4;b\n", r"only one column.*comma-separated"),
    "long row": (b"x1,x2,label\n1,2,a\n3,4,b,9\n5,6,a\n", r"ragged rows.*line 3 has 4 fields"),
    "short row": (b"x1,x2,label\n1,2,a\n3,b\n5,6,a\n", r"ragged rows.*line 3 has 2 fields"),
    "empty cell": (
        b"x1,x2,label\n1,2,a\n3,,b\n5,6,a\n7,8,b\n",
        r"missing value in column 'x2' at row 3",
    ),
    "NA cell": (
        b"x1,x2,label\n1,2,a\n3,4,b\n5,NA,a\n7,8,b\n",
        r"missing value in column 'x2' at row 4",
    ),
    "question mark": (
        b"x1,x2,label\n1,2,a\n3,4,b\n5,6,a\n?,8,b\n",
        r"missing value in column 'x1' at row 5",
    ),
    "non-numeric": (
        b"x1,x2,label\n1,2,a\n3,4,b\n5,six,a\n7,8,b\n",
        r"non-numeric value 'six' in column 'x2' at row 4",
    ),
    "code is text": (
        b"x1,x2,label\n1,2,a\n__import__('os').system('true'),4,b\n5,6,a\n7,8,b\n",
        r"non-numeric value .* in column 'x1' at row 3",
    ),
    "nan": (
        b"x1,x2,label\n1,2,a\n3,4,b\nnan,6,a\n7,8,b\n",
        r"missing value in column 'x1' at row 4",
    ),
    "inf": (b"x1,x2,label\n1,2,a\n3,4,b\n5,6,a\n7,-inf,b\n", r"infinite value .* 'x2' at row 5"),
    "huge number": (b"x1,x2,label\n1,2,a\n3,1e999,b\n5,6,a\n7,8,b\n", r"infinite value.*row 3"),
    "binary junk": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01", r"binary data"),
    "control bytes": (b"x1,x2,label\n1,2,a\n3,4,\x07b\n", r"control characters \(line 3\)"),
    "not utf-8": (
        "x1,x2,label\n1,2,a\n3,4,caf\xe9\n".encode("latin-1"),
        r"not UTF-8 text \(undecodable byte at line 3\)",
    ),
    "single class": (b"x1,x2,label\n1,2,a\n3,4,a\n5,6,a\n7,8,a\n", r"single class \('a'\)"),
    "one row in a class": (
        b"x1,x2,label\n1,2,a\n3,4,a\n5,6,b\n7,8,a\n",
        r"class\(es\) \['b'\].*fewer than 2 rows",
    ),
    "missing label": (b"x1,x2,label\n1,2,a\n3,4,\n5,6,a\n7,8,b\n", r"missing label.*row 3"),
    "duplicate names": (b"x1,x1,label\n1,2,a\n3,4,b\n5,6,a\n7,8,b\n", r"duplicate column.*x1"),
    "empty name": (b"x1,,label\n1,2,a\n3,4,b\n5,6,a\n7,8,b\n", r"empty column name.*\[2\]"),
    "constant column": (
        b"x1,x2,label\n1,2,a\n1,4,b\n1,6,a\n1,8,b\n",
        r"constant feature column\(s\) \['x1'\]",
    ),
    "label only": (b"label\na\nb\n", r"only one column"),
    # before: a one-row file was told "constant feature column(s)"
    "one row": (b"x1,x2,label\n1,2,a\n", r"1 data row\(s\); at least 4 are needed"),
    "three rows": (b"x1,x2,label\n1,2,a\n3,4,b\n5,6,a\n", r"3 data row\(s\); at least 4"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_file_gives_a_clear_error(case):
    data, message = MALFORMED[case]
    with pytest.raises(ValueError, match=message):
        load_csv(io.BytesIO(data))


def test_label_column_not_found_lists_the_columns():
    with pytest.raises(
        ValueError, match=r"label column 'class' not found.*\['x1', 'x2', 'species'\]"
    ):
        load_csv(io.BytesIO(GOOD), label_column="class")


def test_two_columns_one_feature():
    data = b"weight,label\n1,a\n2,b\n3,a\n4,b\n"
    ds = load_csv(io.BytesIO(data))
    assert ds.feature_names == ["weight"] and ds.X.shape == (4, 1)


def test_too_many_rows():
    rows = b"".join(b"%d,%d,%s\n" % (i, i * 2, b"ab"[i % 2 : i % 2 + 1]) for i in range(20_001))
    with pytest.raises(ValueError, match=r"more than 20,000 data rows"):
        load_csv(io.BytesIO(b"x1,x2,label\n" + rows))


def test_exactly_the_row_limit_is_accepted():
    rows = b"".join(b"%d,%d,%s\n" % (i, i % 7, b"ab"[i % 2 : i % 2 + 1]) for i in range(20_000))
    assert load_csv(io.BytesIO(b"x1,x2,label\n" + rows)).n_samples == 20_000


def test_too_many_columns():
    header = ",".join(f"f{i}" for i in range(501)).encode()
    with pytest.raises(ValueError, match=r"501 columns; the limit is 500"):
        load_csv(io.BytesIO(header + b"\n" + b",".join([b"1"] * 501) + b"\n"))


class HugeUpload:
    """A file-like that reports a size over the limit and must not be read at all."""

    name = "huge.csv"
    size = 25 * 1024 * 1024

    def read(self, *args):
        raise AssertionError("the file was read although its size is over the limit")


def test_file_over_20_mb_is_refused_before_reading(tmp_path):
    with pytest.raises(ValueError, match=r"25\.0 MB; the limit is 20 MB"):
        load_csv(HugeUpload())
    big = tmp_path / "big.csv"
    with big.open("wb") as f:
        f.truncate(21 * 1024 * 1024)  # sparse file: size checked by stat, never parsed
    with pytest.raises(ValueError, match=r"21\.0 MB"):
        load_csv(big)
    with pytest.raises(ValueError, match=r"limit is 20 MB"):
        load_csv(io.BytesIO(b"x" * (upload.MAX_BYTES + 1)))


def test_missing_path():
    with pytest.raises(ValueError, match="no such file"):
        load_csv("/nonexistent/data.csv")


def test_never_unpickles(tmp_path):
    import pickle

    payload = pickle.dumps({"x": [1, 2]})
    with pytest.raises(ValueError, match="binary data|not UTF-8|control characters"):
        load_csv(io.BytesIO(payload))
