"""The shape the next engineer relies on (issue 33): the app asks a method's tags, never its key;
a fit is one value, so no function of metriclab/ui/ takes more than six parameters; the pages
stay thin."""

import ast
from pathlib import Path

import pytest

from metriclab.methods import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
# Where a method may be named by its key: the page data (presets, page defaults) and the lessons.
DATA_FILES = {"metriclab/ui/embed/presets.py"}
APP_CODE = sorted(
    p
    for folder in ("metriclab/ui", "pages", "metriclab/evaluation")
    for p in (ROOT / folder).rglob("*.py")
    if str(p.relative_to(ROOT)) not in DATA_FILES
)
MAX_PARAMETERS = 6
MAX_PAGE_LINES = 80  # a page file routes to its view in metriclab/ui/ (issue 40)


def _string_constants(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node


@pytest.mark.parametrize("path", APP_CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_app_code_names_no_method_key(path):
    tree = ast.parse(path.read_text())
    named = [
        f"{node.lineno}: {node.value!r}"
        for node in _string_constants(tree)
        if node.value in REGISTRY
    ]
    assert not named, f"{path.relative_to(ROOT)} names method keys (ask a tag instead): {named}"


def _parameter_count(node) -> int:
    a = node.args
    names = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    count = len(names) + (a.vararg is not None) + (a.kwarg is not None)
    return count - (1 if names and names[0].arg in ("self", "cls") else 0)


def test_no_function_of_the_ui_takes_more_than_six_parameters():
    long = []
    for path in sorted((ROOT / "metriclab" / "ui").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if _parameter_count(node) > MAX_PARAMETERS:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not long, long


def test_pages_stay_thin():
    for path in sorted((ROOT / "pages").glob("*.py")):
        lines = len(path.read_text().splitlines())
        assert lines <= MAX_PAGE_LINES, f"{path.name}: {lines} lines"


def test_the_ui_folder_groups_modules_by_what_the_user_sees():
    ui = ROOT / "metriclab" / "ui"
    assert {p.name for p in ui.iterdir() if p.is_dir() and not p.name.startswith("_")} >= {
        "embed",
        "shared",
    }
    from metriclab.ui.navigation import BY_KEY

    router = {"__init__.py", "app.py", "navigation.py"}
    loose = [p.stem for p in ui.glob("*.py") if p.name not in router]
    # a loose module is one page's view, named after the page; the rest lives in a folder
    assert set(loose) <= set(BY_KEY), loose


# -- parameters: declared once, on the estimator class (issue 40) ----------------------------

ESTIMATOR_CLASSES = sorted({s.estimator for s in REGISTRY.values()}, key=lambda c: c.__name__)


def _refused_value(rule):
    """A value `rule` refuses (None where it has nothing to break)."""
    if rule.kind == "choice":
        return "no-such-choice"
    if rule.kind == "bool":
        return "yes"
    if rule.low is not None:
        return rule.low - 5
    return None if rule.high is None else rule.high + 5


@pytest.mark.parametrize("cls", ESTIMATOR_CLASSES, ids=lambda c: c.__name__)
def test_a_subclass_is_validated_as_its_base(cls):
    """`class MyTDL(TDL): pass` refuses lam=-5 with the same message as TDL: the rules are the
    class's own (inherited), not looked up by the class's identity in the registry."""
    from metriclab.validation import check_params, declared_rules

    sub = type(f"My{cls.__name__}", (cls,), {})
    base = cls(image_shape=(3, 3)) if "image_shape" in cls().get_params() else cls()
    rules = declared_rules(cls)
    assert declared_rules(sub) == rules
    for name, rule in rules.items():
        bad = _refused_value(rule)
        if bad is None or (rule.accepts and isinstance(bad, rule.accepts)):
            continue
        messages = []
        for make in (cls, sub):
            estimator = make(**{**base.get_params(), name: bad})
            with pytest.raises(ValueError) as info:
                check_params(estimator)
            messages.append(str(info.value))
        assert messages[0] == messages[1] and messages[0].startswith(name), messages


def test_my_tdl_refuses_a_negative_lambda_at_fit():
    import numpy as np

    from metriclab import TDL

    class MyTDL(TDL):
        pass

    X = np.random.default_rng(0).standard_normal((30, 2))
    y = np.repeat([0, 1, -1], 10)
    with pytest.raises(ValueError) as theirs:
        TDL(lam=-5).fit(X, y)
    with pytest.raises(ValueError) as mine:
        MyTDL(lam=-5).fit(X, y)
    assert str(mine.value) == str(theirs.value) == "lam must be >= 0.0, got -5"


@pytest.mark.parametrize("cls", ESTIMATOR_CLASSES, ids=lambda c: c.__name__)
def test_each_parameter_and_its_default_are_declared_once(cls):
    """The constructor is written from the class's annotated parameters (`parameters`), so no
    hand-written ``__init__`` can drift from them, and a subclass declares only what it adds:
    a parameter it shares with its base (TangentMetricKNN's image options, TDL's graph options)
    has the base's one default."""
    import dataclasses
    import inspect

    if not vars(cls).get("__annotations__") and not dataclasses.is_dataclass(cls):
        assert list(inspect.signature(cls).parameters) == [], cls  # no parameter at all
        return
    assert dataclasses.is_dataclass(cls), f"{cls.__name__}: declare its parameters (@parameters)"
    fields = dataclasses.fields(cls)
    positional = [f.name for f in fields if not f.kw_only]
    assert [*positional, *(f.name for f in fields if f.kw_only)] == list(
        inspect.signature(cls).parameters
    )
    assert cls.__eq__ is object.__eq__ and cls.__hash__ is object.__hash__  # caches key on it
    for base in cls.__mro__[1:]:
        if dataclasses.is_dataclass(base):
            again = set(vars(cls).get("__annotations__", {})) & {
                f.name for f in dataclasses.fields(base)
            }
            assert not again, f"{cls.__name__} declares {sorted(again)} again ({base.__name__})"


def test_tdl_and_laplacian_eigenmaps_share_their_graph_parameters_and_defaults():
    import pytest as _pytest

    from metriclab import TDL, LaplacianEigenmaps

    le, tdl = LaplacianEigenmaps().get_params(), TDL().get_params()
    assert le.items() <= tdl.items()
    assert set(tdl) - set(le) == {"lam", "k", "cost_scale"}
    assert TDL(3, 8.0, 4).get_params() == TDL(n_components=3, lam=8.0, k=4).get_params()
    with _pytest.raises(TypeError):  # graph options by keyword, as SpectralEmbedding's
        TDL(2, 16.0, 5, 10)
    with _pytest.raises(TypeError):
        LaplacianEigenmaps(2, 10)


def test_the_docs_parameter_tables_show_the_estimators_defaults():
    """The 'default' column of docs/source/_generated/params_<method>.rst is the estimator's
    constructor default; the app's own starting value has its own column."""
    import sys

    from metriclab.validation import constructor_defaults

    sys.path.insert(0, str(ROOT / "docs" / "source"))
    try:
        import metriclab_docs
    finally:
        sys.path.pop(0)
    tables = metriclab_docs.params_tables()
    for key, spec in REGISTRY.items():
        defaults = constructor_defaults(spec.estimator)
        lines = tables[f"params_{key}"].splitlines()
        for p in spec.params:
            row = next(i for i, line in enumerate(lines) if f"``{p.name}``" in line)
            shown_default, shown_start = lines[row + 1], lines[row + 2]
            assert p.estimator_default == defaults[p.name], (key, p.name)
            assert shown_default == f"     - {metriclab_docs._value(defaults[p.name])}", (
                key,
                p.name,
            )
            expected = (
                "the default" if p.default == defaults[p.name] else metriclab_docs._value(p.default)
            )
            assert shown_start == f"     - {expected}", (key, p.name)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_parameter_declarations_live_on_the_estimator_class():
    """The spec files declare no valid range or default of a method's parameter (only `Param.of`
    a class, with presentation and a named `app_default`); the estimators' checks depend on no
    registry or spec (no import circle estimator → registry → specs → estimator)."""
    specs = ROOT / "metriclab" / "methods" / "specs"
    for path in sorted(specs.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Param":
                raise AssertionError(
                    f"{path.name}:{node.lineno}: use Param.of(EstimatorClass, ...)"
                )
    estimators = [
        p
        for p in (ROOT / "metriclab" / "methods").rglob("*.py")
        if specs not in p.parents and p.name not in ("__init__.py", "registry.py")
    ]
    assert estimators
    for path in [*estimators, ROOT / "metriclab" / "validation.py"]:
        bad = {
            m
            for m in _imports(path)
            if m in ("metriclab.methods", "metriclab.methods.registry")
            or m.startswith("metriclab.methods.specs")
            or m == "metriclab.params"
        }
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"
    for cls in ESTIMATOR_CLASSES:
        from metriclab.validation import declared_rules

        if cls.__init__ is not object.__init__:
            assert declared_rules(cls) or cls.__name__ == "EuclideanIdentity", cls.__name__


LINK_SCHEMA = "metriclab/ui/shared/fit_request.py"
# spelled by the schema's constants ("ds" also names a data set variable in the code snippets)
LINK_KEYS = {"cap", "lab", "frac", "per", "pp"}


def _link_spellings(tree) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and node.values:
            first = node.values[0]
            if isinstance(first, ast.Constant) and str(first.value) in ("p.", "d."):
                found.append(f"{node.lineno}: f'{first.value}...'")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in LINK_KEYS or node.value in ("p.", "d."):
                found.append(f"{node.lineno}: {node.value!r}")
    return found


@pytest.mark.parametrize("path", APP_CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_link_schema_is_spelled_in_one_place(path):
    """Issue 40: a fit's URL keys (`ds`, `cap`, `lab`, `frac`/`per`, `pp`, `p.<method>.<name>`,
    `d.<set>.<name>`) are spelled in ui/shared/fit_request.py only; pages and views name them
    through its constants and functions."""
    if str(path.relative_to(ROOT)) == LINK_SCHEMA:
        return
    found = _link_spellings(ast.parse(path.read_text()))
    assert not found, f"{path.relative_to(ROOT)} spells link keys itself: {found}"


def _imports_of(path: Path, package: str) -> set[str]:
    """The modules of `package` that `path` imports anywhere (inside functions too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(package):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith(package)}
    return found


def test_the_evaluation_modules_import_no_circle():
    """Issue 40: evaluation/engine.py imported summary.py, which imported engine.py back inside
    a function (a circle the module-level graph does not show)."""
    package = "metriclab.evaluation"
    folder = ROOT / "metriclab" / "evaluation"
    graph = {
        f"{package}.{p.stem}": _imports_of(p, package) - {package}
        for p in folder.glob("*.py")
        if p.name != "__init__.py"
    }

    def reaches(start: str, target: str, seen: set) -> bool:
        for nxt in graph.get(start, ()):
            if nxt == target or (nxt not in seen and reaches(nxt, target, seen | {nxt})):
                return True
        return False

    circles = [m for m in graph if reaches(m, m, {m})]
    assert not circles, circles


PRIVATE_STREAMLIT_MODULE = "metriclab/ui/shared/streamlit_private.py"
# Streamlit's non-public names and the browser hooks into its page: only in that module.
PRIVATE_HOOKS = ("PagesManager", "uses_pages_directory", "stFileChip", "pushState")
PUBLIC_STREAMLIT_MODULES = ("streamlit", "streamlit.testing.v1")


def _private_streamlit_names(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        modules = []
        if isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
        elif isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        found += [
            f"{node.lineno}: import {m}"
            for m in modules
            if m.startswith("streamlit.") and m not in PUBLIC_STREAMLIT_MODULES
        ]
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [f"{node.lineno}: {h}" for h in PRIVATE_HOOKS if h in node.value]
        if isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in PRIVATE_HOOKS:
                found.append(f"{node.lineno}: {name}")
    return found


@pytest.mark.parametrize(
    "path",
    sorted({*(ROOT / "metriclab").rglob("*.py"), *(ROOT / "pages").glob("*.py")}),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_no_private_streamlit_name_outside_its_one_module(path):
    """Issue 40 item 2: the framework through its public API; what has no public equivalent
    lives in ui/shared/streamlit_private.py with the reason and the tested version range."""
    dev_tools = ("metriclab/ui/dev/server.py", "metriclab/ui/dev/privacy.py")
    if str(path.relative_to(ROOT)) in (PRIVATE_STREAMLIT_MODULE, *dev_tools):
        # test tooling that looks at the served app from outside, not the app: server.py, the
        # test server's health URL; privacy.py, the config message the browser receives
        return
    found = _private_streamlit_names(path)
    assert not found, f"{path.relative_to(ROOT)} uses Streamlit internals: {found}"


def test_the_pinned_streamlit_range_is_the_tested_one():
    """pyproject pins Streamlit to the range streamlit_private is tested on (CI runs both ends)."""
    import tomllib

    from metriclab.ui.shared.streamlit_private import TESTED_STREAMLIT

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (streamlit,) = [d for d in deps if d.startswith("streamlit")]
    oldest, newest = TESTED_STREAMLIT
    major, minor, _ = newest.split(".")
    assert streamlit == f"streamlit>={oldest},<{major}.{int(minor) + 1}", streamlit
    (sklearn,) = [d for d in deps if d.startswith("scikit-learn")]
    assert ",<" in sklearn, sklearn  # an upper bound: CI tests the range it allows
    assert f"streamlit=={oldest}" in (ROOT / "Makefile").read_text()  # make test-oldest
    assert "make test-oldest" in (ROOT / ".ci" / "run").read_text()  # the oldest end runs in CI


# The public keyword API of the library that still takes more (issue 40 item 4: `compare` takes one
# CompareRequest and run-time keywords). These stay, each for its reason: they are functions of
# arrays in scikit-learn's style (`trustworthiness(X, X_embedded, *, n_neighbors, metric)`,
# `StratifiedShuffleSplit`'s sizes), called with an array and one or two options each time, and
# a request value would only wrap the same keywords once more.
WIDE_PUBLIC_API = {
    # splits(y, n_splits, *, fraction | n_train | per_class, stratify, seed, max_tries): the split
    # sizes are three exclusive spellings of one choice, as in scikit-learn's splitters
    "metriclab/evaluation/splitting.py:splits",
    # neighbourhood_quality(X, Z, k, *, metric, y, sample, seed): two arrays and k, then optional
    # keyword-only refinements (the sample's size and seed), like sklearn.manifold.trustworthiness
    "metriclab/evaluation/quality.py:neighbourhood_quality",
    # accuracy_with_baseline(Z, y, mask, classifier, *, n_permutations, seed, sample): the arrays of
    # one fit and the classifier, then the permutation baseline's keyword-only options
    "metriclab/evaluation/quality.py:accuracy_with_baseline",
}


def test_no_function_of_the_evaluation_takes_more_than_six_parameters():
    """Outside ui/ too (issue 40): a fit on a split is one value (fit_split takes a SplitRequest
    and keyword hooks; evaluate_split the request and the classifier)."""
    long = []
    for path in sorted((ROOT / "metriclab" / "evaluation").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                where = f"{path.relative_to(ROOT)}:{node.name}"
                if _parameter_count(node) > MAX_PARAMETERS and where not in WIDE_PUBLIC_API:
                    long.append(f"{where} ({_parameter_count(node)})")
    assert not long, long
