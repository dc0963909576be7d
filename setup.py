"""Packages of the wheel, and the lab's top-level folders mapped into it.

The repository keeps sample_data/, pages/, docs/reproduction/, .streamlit/ and deploy/ at the top
level (where people edit them); a wheel can only carry files inside its package, so they are mapped
at build time to metriclab/_sample_data, metriclab/_pages, metriclab/_reproduction,
metriclab/_streamlit and metriclab/_deploy (metriclab.resources finds either copy). Everything
else about the package is in pyproject.toml.
"""

from setuptools import find_packages, setup

LAB_FOLDERS = {
    "metriclab._sample_data": "sample_data",
    "metriclab._pages": "pages",
    "metriclab._reproduction": "docs/reproduction",
    "metriclab._reproduction.splits": "docs/reproduction/splits",  # a folder is a package to setuptools
    # the project's Streamlit configuration (usage statistics off, no Deploy button, the runner's
    # settings): `metriclab app` passes it to Streamlit, which reads no file from the package
    "metriclab._streamlit": ".streamlit",
    # the class's HAProxy template (`python -m metriclab.deploy`, issue 41)
    "metriclab._deploy": "deploy",
}

setup(
    packages=[*find_packages(include=["metriclab*"]), "metriclab.ui.assets", *LAB_FOLDERS],
    package_dir=LAB_FOLDERS,
    package_data={
        "metriclab._sample_data": ["*.npz", "catalog.json", "PROVENANCE.md"],
        "metriclab._pages": ["*.py"],
        "metriclab._reproduction": ["*.md", "*.csv"],
        "metriclab._reproduction.splits": ["*.csv.gz"],
        "metriclab._streamlit": ["config.toml"],
        "metriclab._deploy": ["*.cfg.in"],
        "metriclab.ui.assets": ["*.png"],
        "metriclab.ui.lessons": ["*.toml"],
        "metriclab.reproduce": ["*.toml"],
    },
)
