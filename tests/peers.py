"""The peers our users come from, imported for the tests and the benches (bench/mahalanobis.py):
metric-learn 0.7.0 passes `force_all_finite=` to scikit-learn's validation functions, which
scikit-learn 1.8+ refuses (it is `ensure_all_finite` now); `import_metric_learn` translates that
keyword in the functions metric-learn imports, rather than pinning an old scikit-learn."""

from __future__ import annotations

import functools


def _translate_force_all_finite(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if "force_all_finite" in kwargs:
            kwargs["ensure_all_finite"] = kwargs.pop("force_all_finite")
        return function(*args, **kwargs)

    return wrapper


def import_metric_learn():
    """metric-learn with its sklearn validation imports shimmed; None if it is not installed."""
    try:
        import metric_learn
        import metric_learn._util as util
    except ImportError:
        return None
    for name in ("check_array", "check_X_y"):
        original = getattr(util, name)
        if not getattr(original, "_metriclab_shim", False):
            shim = _translate_force_all_finite(original)
            shim._metriclab_shim = True
            setattr(util, name, shim)
    return metric_learn
