"""What every page shares: pickers, widgets from the method specs, view state in the URL,
caches, errors, presentation mode and the code snippets."""
