"""Read a user's CSV upload into a Dataset, rejecting anything malformed with a clear message.

Only pandas' C parser reads the data (explicit options, every cell read as text first and
then converted column by column), so nothing in a file is ever evaluated or unpickled.
Every problem is a ValueError that says what is wrong and where (row and column).
Row numbers count lines of the file: the header is line 1, the first data row line 2.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import numpy as np
import pandas as pd

from metriclab.datasets.core import Dataset

MAX_BYTES = 20 * 1024 * 1024
MAX_ROWS = 20_000
MAX_COLUMNS = 500
MIN_PER_CLASS = 2
# Tokens pandas would silently turn into NaN; we treat all of them as missing values.
MISSING_TOKENS = {"", "na", "n/a", "nan", "null", "none", "-nan", "#n/a", "?", "-", "."}


def load_csv(file, label_column: str | None = None) -> Dataset:
    """Parse a CSV with a header row, numeric feature columns and one label column.

    `file` is a path or a file-like object giving bytes or text (e.g. Streamlit's
    UploadedFile). The label column is chosen by name (default: the last column); its values
    may be strings or numbers and are encoded to 0..c-1 in sorted order, with the original
    values kept as `target_names`.

    Parameters
    ----------
    file : str, pathlib.Path or file-like
        The CSV: a path, or an object whose ``read()`` gives bytes or text.
    label_column : str, optional
        The label column's name; None: the last column.

    Returns
    -------
    Dataset
        The features (float64), the encoded labels and the column and class names.

    Raises
    ------
    ValueError
        With a message naming the line and column, for a file that is not a usable table
        (missing or non-numeric values, a constant column, too few rows, one class).

    See Also
    --------
    load : The shipped data sets.

    Examples
    --------
    >>> import io
    >>> from metriclab.datasets import load_csv
    >>> rows = ["x,y,label", "0,0,a", "0,1,a", "5,5,b", "5,6,b", "9,0,c", "9,1,c"]
    >>> text = "\\n".join(rows)
    >>> ds = load_csv(io.StringIO(text), label_column="label")
    >>> ds.X.shape, ds.target_names, ds.y.tolist()
    ((6, 2), ['a', 'b', 'c'], [0, 0, 1, 1, 2, 2])
    """
    name, raw = _read_bytes(file)
    text = _decode(raw)
    frame = _parse(text)
    label = _label_column(frame, label_column)
    features = [c for c in frame.columns if c != label]
    _check_row_count(len(frame))
    X = np.column_stack([_numeric_column(frame[c], c, frame.attrs["lines"]) for c in features])
    _check_constant_columns(X, features)
    y, target_names = _encode_labels(frame[label], label, frame.attrs["lines"])
    return Dataset(
        X=X,
        y=y,
        name=name,
        feature_names=list(features),
        target_names=target_names,
        description=(
            f"Uploaded CSV: {X.shape[0]} rows, {X.shape[1]} features, "
            f"{len(target_names)} classes from column {label!r}."
        ),
        source=f"upload: {name}",
        params={"label_column": label},  # what load_csv(path, label_column=...) was given
    )


# ---------------------------------------------------------------- reading


def _read_bytes(file) -> tuple[str, bytes]:
    """The raw bytes of a path or file-like, refusing files over MAX_BYTES before parsing."""
    if isinstance(file, (str, os.PathLike)):
        path = Path(file)
        if not path.is_file():
            raise ValueError(f"no such file: {path}")
        size = path.stat().st_size
        _check_size(size)
        return path.stem, path.read_bytes()
    if isinstance(file, bytes):
        _check_size(len(file))
        return "upload", file
    name = Path(str(getattr(file, "name", "upload"))).stem or "upload"
    size = getattr(file, "size", None)
    if isinstance(size, int):
        _check_size(size)
    if getattr(file, "seekable", lambda: False)():
        file.seek(0)  # Streamlit re-runs hand over the same UploadedFile
    data = file.read(MAX_BYTES + 1)
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, bytes):
        raise ValueError("the upload did not give bytes or text")
    _check_size(len(data))
    return name, data


def _check_size(n_bytes: int) -> None:
    if n_bytes > MAX_BYTES:
        raise ValueError(
            f"the file is {n_bytes / 1024 / 1024:.1f} MB; the limit is "
            f"{MAX_BYTES // 1024 // 1024} MB (at most {MAX_ROWS:,} rows and {MAX_COLUMNS} columns)"
        )


def _decode(raw: bytes) -> str:
    if not raw.strip():
        raise ValueError("the file is empty")
    if b"\x00" in raw:
        offset = raw.index(b"\x00")
        raise ValueError(
            f"the file contains binary data (a NUL byte at byte {offset}); upload a plain-text CSV"
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise ValueError(
            f"the file is not UTF-8 text (undecodable byte at line {line}); save it as a UTF-8 CSV"
        ) from None
    control = [ch for ch in text if ord(ch) < 32 and ch not in "\t\n\r"]
    if control:
        line = text[: text.index(control[0])].count("\n") + 1
        raise ValueError(
            f"the file contains binary control characters (line {line}); upload a plain-text CSV"
        )
    return text


def _parse(text: str) -> pd.DataFrame:
    """Header + rows as strings; rejects ragged rows, single-column files and duplicates."""
    columns, data_lines = _scan_records(text)
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            sep=",",
            header=0,
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            skip_blank_lines=True,
            skipinitialspace=True,
            engine="c",
            on_bad_lines="error",
        )
    except pd.errors.EmptyDataError:
        raise ValueError("the file is empty") from None
    except pd.errors.ParserError as err:
        raise ValueError(_ragged_message(err)) from None
    if frame.shape[1] != len(columns):
        raise ValueError(
            f"the header has {len(columns)} names but rows have {frame.shape[1]} fields; "
            "check the delimiter and quoting"
        )
    frame.columns = columns
    if frame.empty:
        raise ValueError("the file has a header but no data rows")
    if len(data_lines) != len(frame):
        raise ValueError("could not read the rows consistently; check quoting in the file")
    frame.attrs["lines"] = data_lines
    return frame


def _scan_records(text: str) -> tuple[list[str], list[int]]:
    """Header names and the file line of each data row, checking the shape before pandas
    reads the values: row/column limits, a single column (wrong delimiter), ragged rows.
    The stdlib csv reader follows the same quoting rules as pandas' C parser."""
    reader = csv.reader(io.StringIO(text), skipinitialspace=True)
    header = next(reader, [])
    while not header:  # pandas skips blank lines before the header too
        header = next(reader)  # text is not blank, so a non-empty record follows
    columns = [c.strip() for c in header]
    if len(columns) > MAX_COLUMNS:
        raise ValueError(f"the file has {len(columns)} columns; the limit is {MAX_COLUMNS}")
    if len(columns) == 1:
        raise ValueError(
            "only one column was found; the file must be comma-separated with a header, "
            f"e.g. 'x1,x2,label' (header read as {columns[0][:60]!r})"
        )
    _check_header(columns)
    data_lines: list[int] = []
    first_line = reader.line_num + 1
    for record in reader:
        if not record:
            first_line = reader.line_num + 1
            continue  # blank line
        if len(record) != len(columns):
            raise ValueError(
                f"rows have different numbers of fields (ragged rows): line {first_line} has "
                f"{len(record)} fields, the header has {len(columns)}"
            )
        data_lines.append(first_line)
        if len(data_lines) > MAX_ROWS:
            raise ValueError(f"the file has more than {MAX_ROWS:,} data rows (the limit)")
        first_line = reader.line_num + 1
    return columns, data_lines


def _ragged_message(err: Exception) -> str:
    """pandas says e.g. 'Expected 3 fields in line 5, saw 4'; keep the where, say the what."""
    message = str(err).strip().splitlines()[-1]
    return f"rows have different numbers of fields (ragged rows): {message}"


def _check_header(columns: list[str]) -> None:
    empty = [i + 1 for i, c in enumerate(columns) if not c]
    if empty:
        raise ValueError(f"the header has an empty column name at position(s) {empty}")
    numeric = [c for c in columns if _is_number(c)]
    if len(numeric) == len(columns) or len(numeric) > len(columns) // 2:
        raise ValueError(
            "the first row looks like data, not a header (column names such as "
            f"{numeric[:3]} are numbers); add a header row of column names that are not plain "
            "numbers (e.g. f0, f1, ..., label)"
        )
    seen, duplicates = set(), []
    for c in columns:
        if c in seen and c not in duplicates:
            duplicates.append(c)
        seen.add(c)
    if duplicates:
        raise ValueError(f"duplicate column names in the header: {duplicates}")


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------- columns


def _label_column(frame: pd.DataFrame, label_column: str | None) -> str:
    if label_column is None:
        return frame.columns[-1]
    if label_column not in frame.columns:
        raise ValueError(
            f"label column {label_column!r} not found; columns are {list(frame.columns)}"
        )
    return label_column


def _numeric_column(values: pd.Series, column: str, lines: list[int] | None) -> np.ndarray:
    """One feature column as float64; names the first missing / non-numeric / infinite cell."""
    text = values.str.strip()
    missing = text.str.lower().isin(MISSING_TOKENS)
    if missing.any():
        row = _file_line(missing, lines)
        raise ValueError(
            f"missing value in column {column!r} at row {row} "
            f"(found {values[missing].iloc[0]!r}); fill or drop incomplete rows"
        )
    numbers = pd.to_numeric(text, errors="coerce")
    bad = numbers.isna()
    if bad.any():
        row = _file_line(bad, lines)
        raise ValueError(
            f"non-numeric value {values[bad].iloc[0]!r} in column {column!r} at row {row}; "
            "feature columns must be numbers"
        )
    X = numbers.to_numpy(dtype=np.float64)
    infinite = ~np.isfinite(X)
    if infinite.any():
        row = _file_line(infinite, lines)
        raise ValueError(
            f"infinite value {values[infinite].iloc[0]!r} in column {column!r} at row {row}"
        )
    return X


def _file_line(mask, lines: list[int] | None = None) -> int:
    """Line number in the file (header = line 1) of the first True in a per-row mask."""
    i = int(np.flatnonzero(np.asarray(mask))[0])
    return lines[i] if lines else i + 2


def _check_row_count(n_rows: int) -> None:
    """Two classes of MIN_PER_CLASS rows at least: say so before any per-column check."""
    needed = 2 * MIN_PER_CLASS
    if n_rows < needed:
        raise ValueError(
            f"the file has {n_rows} data row(s); at least {needed} are needed "
            f"(two classes with {MIN_PER_CLASS} rows each)"
        )


def _check_constant_columns(X: np.ndarray, features: list[str]) -> None:
    constant = [f for f, col in zip(features, X.T, strict=True) if np.all(col == col[0])]
    if constant:
        raise ValueError(
            f"constant feature column(s) {constant}: they carry no information; "
            "remove them from the file"
        )


def _encode_labels(
    values: pd.Series, column: str, lines: list[int] | None
) -> tuple[np.ndarray, list[str]]:
    text = values.str.strip()
    missing = text.str.lower().isin(MISSING_TOKENS)
    if missing.any():
        raise ValueError(
            f"missing label in column {column!r} at row {_file_line(missing, lines)}; "
            "every row needs a class"
        )
    numbers = pd.to_numeric(text, errors="coerce")
    if not numbers.isna().any():
        # Numeric labels: sort numerically (so 2 < 10) and name classes by their text.
        order = sorted(set(numbers.tolist()))
        index = {v: i for i, v in enumerate(order)}
        y = np.array([index[v] for v in numbers.tolist()], dtype=np.int64)
        first_text = {}
        for v, t in zip(numbers.tolist(), text.tolist(), strict=True):
            first_text.setdefault(v, t)
        target_names = [first_text[v] for v in order]
    else:
        target_names = sorted(set(text.tolist()))
        index = {v: i for i, v in enumerate(target_names)}
        y = np.array([index[v] for v in text.tolist()], dtype=np.int64)
    if len(target_names) < 2:
        raise ValueError(
            f"the label column {column!r} has a single class ({target_names[0]!r}); "
            "at least two classes are needed"
        )
    counts = np.bincount(y, minlength=len(target_names))
    small = [name for name, c in zip(target_names, counts, strict=True) if c < MIN_PER_CLASS]
    if small:
        raise ValueError(
            f"class(es) {small[:10]} in column {column!r} have fewer than {MIN_PER_CLASS} rows; "
            "every class needs at least two"
        )
    return y, target_names
