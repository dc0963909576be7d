"""The registry's metadata of each method family, one module per family: the `SPECS` list of
`MethodSpec`s (labels, slider ranges, help, behaviour flags) apart from the algorithms.
`metriclab.methods` gathers them into `REGISTRY`."""
