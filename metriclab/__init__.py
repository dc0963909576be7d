"""metriclab: learning distances and embeddings from labels.

Implements Li, Yang & Wang (2007) TDL, Zhang (2003) discriminant kernels and MDS, tangent distance
with Mahalanobis metrics (Mody 2009) and the KPCA trick (Chatpatanasiri et al. 2009).
"""

from importlib import import_module

__version__ = "0.1.0"

_EXPORTS = {
    "TDL": "metriclab.methods.spectral",
    "LaplacianEigenmaps": "metriclab.methods.spectral",
    "DiscriminantKernelMDS": "metriclab.methods.zhang",
    "NCA": "metriclab.methods.mahalanobis",
    "NeighborhoodComponentsAnalysis": "metriclab.methods.mahalanobis",
    "LMNN": "metriclab.methods.mahalanobis",
    "DNE": "metriclab.methods.mahalanobis",
    "KernelPCATrick": "metriclab.methods.kpca_trick",
    "TangentDistanceKNN": "metriclab.methods.tangent",
    "TangentMetricKNN": "metriclab.methods.tangent",
    "tangent_distance": "metriclab.methods.tangent",
    "tangent_neighbours": "metriclab.methods.tangent",
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name):  # lazy, so that `import metriclab` stays light for the app's start-up
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'metriclab' has no attribute {name!r}")
