"""The Embed page: one module per view mode (live, spread, input view, watch it learn, lambda
scrub, window map) and what they share (the page context, presets)."""
