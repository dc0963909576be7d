"""Write the small intersphinx inventories of docs/source/_inventories/ (issue 38.2).

The documentation links scikit-learn, NumPy, SciPy, pandas, Plotly and Python objects through
intersphinx, but the build machine and CI reach no documentation site (only package
registries), so sphinx cannot download those projects' objects.inv. This script writes one
inventory per project with the objects our docstrings and pages name, at their real URLs, in
Sphinx's own format (version 2, zlib-compressed, read by sphinx.ext.intersphinx from a local
path). Run it after naming a new outside object in the docs:

    python tools/build_intersphinx_inventories.py

and commit the changed .inv files. tests/test_api_docs.py checks that every file loads and that
each object listed here is in it.
"""

from __future__ import annotations

import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "docs" / "source" / "_inventories"

# project -> (name, version, [(object name, domain:role, uri relative to the site's root)])
# "$" in a uri stands for the object's name (written out here: Sphinx expands only a final "$").
SKLEARN = "modules/generated/$.html#$"
NUMPY = "reference/generated/$.html#$"
SCIPY = "reference/generated/$.html#$"
INVENTORIES = {
    "sklearn": (
        "scikit-learn",
        "1.8",
        [
            *(
                (name, "py:class", SKLEARN)
                for name in (
                    "sklearn.neighbors.NeighborhoodComponentsAnalysis",
                    "sklearn.neighbors.KNeighborsClassifier",
                    "sklearn.neighbors.NearestNeighbors",
                    "sklearn.manifold.SpectralEmbedding",
                    "sklearn.manifold.MDS",
                    "sklearn.decomposition.KernelPCA",
                    "sklearn.decomposition.PCA",
                    "sklearn.discriminant_analysis.LinearDiscriminantAnalysis",
                    "sklearn.pipeline.Pipeline",
                    "sklearn.model_selection.GridSearchCV",
                    "sklearn.preprocessing.StandardScaler",
                    "sklearn.preprocessing.MinMaxScaler",
                    "sklearn.base.BaseEstimator",
                    "sklearn.base.TransformerMixin",
                    "sklearn.base.ClassifierMixin",
                )
            ),
            *(
                (name, "py:function", SKLEARN)
                for name in (
                    "sklearn.base.clone",
                    "sklearn.utils.estimator_checks.check_estimator",
                    "sklearn.metrics.accuracy_score",
                )
            ),
            ("estimators", "std:term", "glossary.html#term-estimators"),
            ("random_state", "std:term", "glossary.html#term-random_state"),
            ("fit", "std:term", "glossary.html#term-fit"),
            ("transform", "std:term", "glossary.html#term-transform"),
            ("glossary", "std:label", "glossary.html#glossary"),
            ("accuracy_score", "std:label", "modules/model_evaluation.html#accuracy-score"),
        ],
    ),
    "numpy": (
        "NumPy",
        "2.3",
        [
            ("numpy.ndarray", "py:class", NUMPY),
            ("numpy.random.RandomState", "py:class", "reference/random/legacy.html#$"),
            ("numpy.random.Generator", "py:class", "reference/random/generator.html#$"),
            ("numpy.random.default_rng", "py:function", "reference/random/generator.html#$"),
            ("numpy.linalg.eigh", "py:function", NUMPY),
            ("array_like", "std:term", "glossary.html#term-array_like"),
        ],
    ),
    "scipy": (
        "SciPy",
        "1.16",
        [
            ("scipy.sparse.csr_matrix", "py:class", SCIPY),
            ("scipy.sparse.csr_array", "py:class", SCIPY),
            ("scipy.sparse.linalg.eigsh", "py:function", SCIPY),
            ("scipy.sparse.linalg.lobpcg", "py:function", SCIPY),
            ("scipy.linalg.eigh", "py:function", SCIPY),
            ("scipy.optimize.minimize", "py:function", SCIPY),
            ("scipy.stats.wilcoxon", "py:function", SCIPY),
            ("scipy.spatial.distance.cdist", "py:function", SCIPY),
        ],
    ),
    "pandas": (
        "pandas",
        "2.3",
        [("pandas.DataFrame", "py:class", "reference/api/$.html#$")],
    ),
    "plotly": (
        "plotly",
        "6.0",
        [
            ("plotly.graph_objects.Figure", "py:class", "generated/$.html#$"),
            ("plotly.io.write_image", "py:function", "generated/$.html#$"),
            ("plotly.io.write_html", "py:function", "generated/$.html#$"),
            ("plotly.io.renderers", "py:data", "generated/plotly.io.html#$"),
        ],
    ),
    "python": (
        "Python",
        "3.13",
        [
            ("doctest", "py:module", "library/doctest.html#module-$"),
            ("pathlib.Path", "py:class", "library/pathlib.html#$"),
            ("dict", "py:class", "library/stdtypes.html#$"),
            ("list", "py:class", "library/stdtypes.html#$"),
            ("tuple", "py:class", "library/stdtypes.html#$"),
            ("str", "py:class", "library/stdtypes.html#$"),
            ("int", "py:class", "library/functions.html#$"),
            ("float", "py:class", "library/functions.html#$"),
            ("bool", "py:class", "library/functions.html#$"),
            ("callable", "py:function", "library/functions.html#$"),
            ("ValueError", "py:exception", "library/exceptions.html#$"),
            ("bltin-boolean-values", "std:label", "library/stdtypes.html#bltin-boolean-values"),
            ("sequence", "std:term", "glossary.html#term-sequence"),
            ("iterable", "std:term", "glossary.html#term-iterable"),
            ("mapping", "std:term", "glossary.html#term-mapping"),
        ],
    ),
}


def inventory_bytes(project: str, version: str, entries) -> bytes:
    """One objects.inv (format version 2): a plain header, then zlib-compressed lines
    ``name domain:role priority uri display-name`` ("-": the display name is the name)."""
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {project}\n"
        f"# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    ).encode()
    lines = "".join(
        f"{name} {role} 1 {uri.replace('$', name)} -\n" for name, role, uri in sorted(entries)
    )
    return header + zlib.compress(lines.encode(), 9)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for key, (project, version, entries) in INVENTORIES.items():
        (OUT / f"{key}.inv").write_bytes(inventory_bytes(project, version, entries))
        print(f"{key}.inv: {len(entries)} objects")


if __name__ == "__main__":
    main()
