"""Evaluation: seeded splits, one way to fit a method on a split, classifiers in an embedding, and
the repeated-split engine `compare` with its `summarize`.

- `splitting`: which points are labeled in each seeded split (`labeled_mask`, `splits`, ...).
- `fitting`: `fit_split`, the one way to fit a method on a split under a protocol.
- `scoring`: 1-NN / k-NN / nearest-mean accuracy in an embedding.
- `engine`: `compare`, one row per data set × method × split, cached and run in parallel
  (`parallel`: joblib or a Dask cluster).
- `summary`: `summarize` and the paired test against the Euclidean baseline.
"""

from metriclab.evaluation.engine import (
    RECORDED_ERRORS,
    RESULT_FIELDS,
    CompareRequest,
    compare,
    current_run_defaults,
    evaluate_split,
    parse_method,
    run_defaults,
)
from metriclab.evaluation.fitting import (
    SplitFit,
    SplitRequest,
    estimator_params,
    fit_split,
    resolve_protocol,
)
from metriclab.evaluation.scoring import (
    classifier_accuracy,
    embedding_accuracy,
    knn_accuracy,
    nearest_mean_accuracy,
    parse_classifier,
)
from metriclab.evaluation.splitting import (
    UNLABELED,
    labeled_mask,
    partial_labels,
    split_seed,
    splits,
    stratified_counts,
    stratified_mask,
)
from metriclab.evaluation.summary import (
    SUMMARY_GROUP,
    method_label,
    paired_test,
    paired_verdict,
    summarize,
)

__all__ = [
    "RECORDED_ERRORS",
    "RESULT_FIELDS",
    "SUMMARY_GROUP",
    "UNLABELED",
    "CompareRequest",
    "SplitFit",
    "SplitRequest",
    "classifier_accuracy",
    "compare",
    "current_run_defaults",
    "embedding_accuracy",
    "estimator_params",
    "evaluate_split",
    "fit_split",
    "knn_accuracy",
    "labeled_mask",
    "method_label",
    "nearest_mean_accuracy",
    "paired_test",
    "paired_verdict",
    "parse_classifier",
    "parse_method",
    "partial_labels",
    "resolve_protocol",
    "run_defaults",
    "split_seed",
    "splits",
    "stratified_counts",
    "stratified_mask",
    "summarize",
]

# -- issue 37: quality beyond 1-NN and new points (`quality`, `held_out`) -------------------------
from metriclab.evaluation.held_out import (  # noqa: E402
    HeldOutFit,
    NewPoints,
    NoOutOfSampleMap,
    fit_held_out,
    held_out_mask,
    map_new_points,
    out_of_sample_reason,
)
from metriclab.evaluation.quality import (  # noqa: E402
    BaselinedAccuracy,
    NeighbourhoodQuality,
    QualitySample,
    accuracy_with_baseline,
    continuity,
    kept_neighbours,
    metric_space,
    neighbourhood_quality,
    quality_sample,
    trustworthiness,
)

__all__ += [
    "BaselinedAccuracy",
    "HeldOutFit",
    "NeighbourhoodQuality",
    "NewPoints",
    "NoOutOfSampleMap",
    "QualitySample",
    "accuracy_with_baseline",
    "continuity",
    "fit_held_out",
    "held_out_mask",
    "kept_neighbours",
    "map_new_points",
    "metric_space",
    "neighbourhood_quality",
    "out_of_sample_reason",
    "quality_sample",
    "trustworthiness",
]
