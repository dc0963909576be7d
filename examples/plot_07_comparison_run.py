"""
A comparison run
================

`metriclab.evaluation.compare` fits several methods on the same seeded random splits (the
Euclidean baseline is always added) and `summarize` gives each method's mean, spread and its
paired comparison with the baseline: the numbers the app's Compare page shows.
"""

import matplotlib.pyplot as plt

from metriclab.evaluation import compare, summarize

results = compare("iris", ["pca:n_components=2", "nca", "lmnn:k=3", "le"], n_splits=5, seed=0)
summary = summarize(results)
print(summary.to_string())

means = results.groupby("method")["accuracy"].agg(["mean", "std"]).sort_values("mean")
fig, ax = plt.subplots(figsize=(6, 3.2))
ax.barh(means.index, means["mean"], xerr=means["std"], color="#4c72b0")
ax.set_xlim(0.5, 1.0)
ax.set_xlabel("1-NN accuracy on iris (5 splits, mean ± std)")
fig.tight_layout()
plt.show()
