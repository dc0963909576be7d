"""Method registry: one `MethodSpec` per method, the one declaration of it.

A method is added by writing its estimator and one `MethodSpec` (in a `SPECS` list of a family
module in `metriclab.methods.specs`, or from anywhere with `metriclab.methods.register`). The spec
holds everything else there is to know about the method, written once:

- its parameters as the app shows them (`metriclab.params.Param.of` the estimator class: slider
  range and scale, label, help, and the app's starting value where it is not the estimator's
  default), for the app's sliders, the link clamp and the parameter tables of the docs; the valid
  values and the defaults are the estimator class's own (`_parameter_rules` and its constructor,
  checked at fit by `metriclab.validation.check_params`), read by the spec, never declared here;
- its capabilities as tags (`CAPABILITIES`), which the app, the evaluation engine and the code
  snippets ask instead of naming methods: a new Mahalanobis learner gets the balls overlay, its
  output dimension capped at the number of features and a place in every list by its tags alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from metriclab.params import Param

#: The capability tags a `MethodSpec` may carry: tag -> what it means. The app, the evaluation
#: engine and the code snippets ask a method's tags (`MethodSpec.has`, `specs_with`), never
#: its key.
CAPABILITIES = {
    "transductive": "embeds the points it is fitted on (y == -1 marks the unlabeled ones, "
    "`embedding_`); without this tag a method is inductive (fit on labeled points, `transform`)",
    "out_of_sample": "a transductive method that also maps new points (`transform`)",
    "unsupervised": "uses no labels",
    "classifier": "predicts labels (fit / predict) and gives no embedding",
    "needs_images": "needs a data set with `image_shape`, given to the factory as `image_shape`",
    "linear_map": "a linear map of the features: its output dimension is at most their number",
    "mahalanobis": "learns a Mahalanobis metric M = LᵀL (`get_mahalanobis_matrix`): balls of the "
    "metric are exact ellipses",
    "kernelised": "a linear learner on kernel-PCA coordinates (`kpca_transform`): its metric is "
    "not linear in the input",
    "learning_frames": "records its iterates (`record_iterates=True`, `iterates_`) to watch it learn",
    "impostors": "has target neighbours and impostors (`target_neighbors_`) to draw",
    "dissimilarity": "learns a dissimilarity between points (`dissimilarity_`)",
    "graph": "builds a neighbourhood graph on all points (`affinity_`) to draw",
    "input_space": "the input space itself: the Euclidean baseline every comparison shows",
    "projection": "the unsupervised linear map to `n_components` dimensions: the same-dimension "
    "baseline of a learned embedding",
}


@dataclass(frozen=True)
class Explanation:
    """The 'what am I looking at' of a method family: a paragraph and the paper's formulas.

    Shown by the app beside the chart of every method of the family (`MethodSpec.explanation`).

    Parameters
    ----------
    text : str
        The paragraph, in Markdown.
    latex : tuple of str, default=()
        The paper's formulas, in LaTeX, one per entry.

    See Also
    --------
    MethodSpec : The method that carries it.

    Examples
    --------
    >>> from metriclab.methods import REGISTRY, Explanation
    >>> explanation = REGISTRY["euclidean"].explanation
    >>> explanation.text.startswith("**Baselines.**"), len(explanation.latex)
    (True, 1)
    >>> Explanation("Distances in the input space.").latex
    ()
    """

    text: str
    latex: tuple[str, ...] = ()


@dataclass(frozen=True)
class MethodSpec:
    """What the app, the CLI, the docs and the tests need to know about one method.

    ``factory(**params)`` builds an unfitted estimator; `make` checks the parameters against
    `params` first. Conventions of the estimator:

    - transductive methods (tag "transductive"): ``fit(X_all, y)`` with ``y == -1`` on unlabeled
      points; ``embedding_`` holds the embedding of all points (``transform`` maps new points
      with the tag "out_of_sample").
    - inductive methods: ``fit(X_labeled, y_labeled)``; ``transform(X)`` maps any points.
    - classifiers (tag "classifier", e.g. tangent-distance k-NN): ``fit(X_labeled, y_labeled)``,
      ``predict(X)``; they have no embedding.
    - image methods (tag "needs_images") need a data set with ``image_shape`` and receive it as
      the ``image_shape`` keyword of the factory.

    Parameters
    ----------
    key : str
        The method's key in `REGISTRY` (``"tdl"``), used in links and on the command line.
    label : str
        The name shown to a person (``"TDL (transductive distance learning)"``).
    paper : str
        The paper the method implements (the stem of its file in the papers folder), or
        ``"baseline"``.
    params : sequence of Param
        The parameters the app, the link and the command line offer; kept as a tuple.
    factory : callable
        Builds an unfitted estimator from the parameters' values (and `fixed`).
    family : str, default="baseline"
        The group the method belongs to (``"spectral"``, ``"mahalanobis"``, ...).
    tags : set of str, default=frozenset()
        The method's capabilities, keys of `CAPABILITIES` (an unknown tag raises ValueError);
        kept as a frozenset.
    baseline : str or None, default="euclidean"
        The key of the method shown beside this one, or None for none.
    description : str, default=""
        One or two sentences about the method, for the app's method picker.
    explanation : Explanation or None, default=None
        The family's paragraph and formulas.
    loss_name : str, default="loss"
        The name of the loss curve when the method records its iterations.
    learning_note : str, default=""
        A sentence about how the method's loss moves, for the view that watches it learn.
    estimator : type or None, default=None
        The class the factory builds (its ``fit`` checks its parameters against its own
        ``_parameter_rules``).
    fixed : mapping, default={}
        Constructor arguments the app always passes and does not offer (a seed); kept as a dict.

    See Also
    --------
    register : Add a spec to the registry.
    Param : One of its parameters.

    Examples
    --------
    >>> from metriclab.methods import REGISTRY
    >>> spec = REGISTRY["tdl"]
    >>> spec.short_label, spec.family, sorted(spec.tags)
    ('TDL', 'spectral', ['graph', 'out_of_sample', 'transductive'])
    >>> [p.name for p in spec.params][:3]
    ['lam', 'k', 'n_components']
    >>> spec.make(lam=4, k=3)
    TDL(k=3, lam=4.0, n_neighbors=10)
    """

    key: str
    label: str
    paper: str
    params: Sequence[Param]
    factory: Callable[..., Any]
    family: str = "baseline"
    tags: frozenset[str] = frozenset()
    baseline: str | None = "euclidean"
    description: str = ""
    explanation: Explanation | None = None
    loss_name: str = "loss"  # the loss curve's name when the method records its iterations
    learning_note: str = ""  # a sentence about how this method's loss moves, for that view
    estimator: type | None = None
    fixed: Mapping[str, Any] = field(default_factory=dict)  # passed by `make`, not offered

    def __post_init__(self):
        tags = frozenset(self.tags)
        unknown = sorted(tags - set(CAPABILITIES))
        if unknown:
            raise ValueError(f"{self.key}: unknown tag(s) {unknown}; known: {sorted(CAPABILITIES)}")
        object.__setattr__(self, "tags", tags)
        object.__setattr__(self, "params", tuple(self.params))
        object.__setattr__(self, "fixed", dict(self.fixed))
        names = [p.name for p in self.params]
        if len(names) != len(set(names)):
            raise ValueError(f"{self.key}: a parameter is declared twice in {names}")

    # -- capabilities --------------------------------------------------------------------------

    def has(self, *tags: str) -> bool:
        """Whether the method has every one of `tags`.

        Parameters
        ----------
        *tags : str
            Keys of `CAPABILITIES` (an unknown tag raises ValueError).

        Returns
        -------
        bool
            True if the method has all of them (and for no tag at all).
        """
        for tag in tags:
            if tag not in CAPABILITIES:
                raise ValueError(f"unknown tag {tag!r}; known: {sorted(CAPABILITIES)}")
        return set(tags) <= self.tags

    @property
    def short_label(self) -> str:
        """'TDL' for 'TDL (transductive distance learning)': the name without its gloss."""
        return self.label.split(" (")[0]

    @property
    def transductive(self) -> bool:
        """Whether the method embeds the points it is fitted on (the tag "transductive")."""
        return "transductive" in self.tags

    @property
    def needs_labels(self) -> bool:
        """Whether the method uses labels (it has no tag "unsupervised")."""
        return "unsupervised" not in self.tags

    @property
    def out_of_sample(self) -> bool:
        """Whether new points can be mapped (every inductive method; tagged transductive ones)."""
        return not self.transductive or "out_of_sample" in self.tags

    @property
    def gives_dissimilarity(self) -> bool:
        """Whether the method learns a dissimilarity (the tag "dissimilarity")."""
        return "dissimilarity" in self.tags

    @property
    def input(self) -> str:
        """'image' for a method tagged "needs_images", else 'vector'."""
        return "image" if "needs_images" in self.tags else "vector"

    @property
    def output(self) -> str:
        """'classifier' for a method tagged "classifier", else 'embedding'."""
        return "classifier" if "classifier" in self.tags else "embedding"

    # -- parameters ----------------------------------------------------------------------------

    def param(self, name: str) -> Param:
        """The parameter called `name`.

        Parameters
        ----------
        name : str
            The parameter's name (its constructor argument).

        Returns
        -------
        Param
            The parameter; a KeyError if the method has none by that name.
        """
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"{self.key} has no parameter {name!r}")

    def defaults(self) -> dict[str, Any]:
        """The values the app starts from.

        Returns
        -------
        dict
            Each parameter's name -> its `Param.default` (the estimator's default unless the
            spec names an ``app_default``).
        """
        return {p.name: p.default for p in self.params}

    def resolve(self, **params: Any) -> dict[str, Any]:
        """Defaults overridden by `params`, each validated.

        Parameters
        ----------
        **params
            Parameter values by name, read by `Param.validate` (so ``"3"`` is the number 3);
            ``image_shape`` is passed through. An unknown name raises ValueError.

        Returns
        -------
        dict
            Every parameter's value, in the order of `params`.
        """
        known = {p.name for p in self.params}
        unknown = sorted(set(params) - known - {"image_shape"})
        if unknown:
            raise ValueError(f"{self.label} has no parameter(s) {unknown}; known: {sorted(known)}")
        values = self.defaults()
        for name, value in params.items():
            if name == "image_shape":
                values[name] = value
                continue
            values[name] = self.param(name).validate(value)
        return values

    def make(self, **params: Any) -> Any:
        """An unfitted estimator with validated parameters (and the spec's `fixed` arguments).

        Parameters
        ----------
        **params
            Parameter values by name, as for `resolve`; the others take their defaults. Image
            methods take ``image_shape``.

        Returns
        -------
        estimator
            ``factory(**fixed, **resolve(**params))``, not fitted.
        """
        return self.factory(**self.fixed, **self.resolve(**params))


def with_tags(specs: Iterable[MethodSpec], *tags: str, without: Sequence[str] = ()) -> list:
    """The specs that have every one of `tags` and none of `without`, in registry order."""
    return [s for s in specs if s.has(*tags) and not any(s.has(t) for t in without)]
