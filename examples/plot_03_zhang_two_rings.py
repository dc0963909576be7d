"""
Zhang's two rings: feature vectors from a discriminant dissimilarity
====================================================================

Figure 3 of Zhang (2003): two concentric rings are not linearly separable, so a nearest-mean
classifier fails in the input space. The direct-sum dissimilarity δ(2) (Eq. 14) from 20 labels
per ring, embedded by the out-of-sample expansion of the MDS configuration, maps the rings to two
compact groups.
"""

from metriclab import DiscriminantKernelMDS
from metriclab.datasets import load
from metriclab.evaluation import labeled_mask, nearest_mean_accuracy
from metriclab.plotting import dissimilarity, embedding

ds = load("two_rings", n_samples=300)
mask = labeled_mask(ds.y, per_class=20, seed=0)
model = DiscriminantKernelMDS(dissimilarity="delta2", n_components=2, random_state=0)
model.fit(ds.X[mask], ds.y[mask])
F = model.transform(ds.X)

for Z, name in ((ds.X, "input space"), (F, "δ(2) feature space")):
    accuracy = nearest_mean_accuracy(Z[mask], ds.y[mask], Z[~mask], ds.y[~mask])
    fig = embedding(Z, ds.y, labeled=mask, title=f"{name}: nearest mean {accuracy:.2f}")
    fig.show()

# %%
# The learned dissimilarities of the labelled points, sorted by class: small within a ring,
# large between the rings.
fig = dissimilarity(model, ds.y[mask], title="δ(2) between the labelled points")
fig.show()
