"""
A comparison run
================

`metriclab.evaluation.compare` runs a `CompareRequest`: it fits several methods on the same seeded random splits (the
Euclidean baseline is always added) and `summarize` gives each method's mean, spread and its
paired comparison with the baseline: the numbers the app's Compare page shows.
"""

from metriclab.evaluation import CompareRequest, compare, summarize
from metriclab.plotting import comparison

request = CompareRequest(
    "iris", ["pca:n_components=2", "nca", "lmnn:k=3", "le"], n_splits=10, seed=0
)
results = compare(request)
summary = summarize(results)
print(summary.to_string())

# %%
# Every split is a point; the boxes span the middle half.
fig = comparison(results, title="1-NN accuracy on iris, 10 splits")
fig.show()
