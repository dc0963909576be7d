"""The only streamlit-aware code of metriclab: widgets built from `Param` specs, URL state, cached
computations for the pages and the error guard that turns ValueError into `st.error`."""
