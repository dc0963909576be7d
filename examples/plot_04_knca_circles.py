"""
KNCA on nested circles: the KPCA trick
======================================

Figure 2 of Chatpatanasiri et al. (2009): no linear map separates three nested circles, so NCA's
1-D projection mixes them; the same NCA run on kernel-PCA coordinates of the 2nd-order
polynomial kernel (x'y + 1)² (KNCA) separates them.
"""

from metriclab import NCA, KernelPCATrick
from metriclab.datasets import load
from metriclab.evaluation import knn_accuracy, splits
from metriclab.plotting import embedding

ds = load("curves_circles", n_samples=300, seed=0)
_, mask = splits(ds.y, 1, fraction=0.5, seed=0)[0]
Xtr, ytr, Xte, yte = ds.X[mask], ds.y[mask], ds.X[~mask], ds.y[~mask]
nca = NCA(n_components=1, init="pca", max_iter=100, random_state=0).fit(Xtr, ytr)
knca = KernelPCATrick(learner="nca", kernel="polynomial", degree=2, n_components=1).fit(Xtr, ytr)

fig = embedding(ds.X, ds.y, title="three nested circles")
fig.show()

# %%
# The one learned direction of each method (a strip per class).
for model, name in ((nca, "NCA"), (knca, "KNCA, (x'y + 1)²")):
    accuracy = knn_accuracy(model.transform(Xtr), ytr, model.transform(Xte), yte)
    fig = embedding(model, ds.y, X=ds.X, labeled=mask, title=f"{name}: 1-NN {accuracy:.2f}")
    fig.show()
