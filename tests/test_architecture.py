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
MAX_PAGE_LINES = 250


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
    loose = [p.name for p in ui.glob("*.py") if p.name != "__init__.py"]
    assert len(loose) <= 6, loose  # one module per page at most; the rest lives in a folder


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
