"""Packaging the setup of pyproject.toml cannot express: the repository's top-level
``properties/`` folder is installed as ``passcheck.properties`` (nothing else at top level)."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["passcheck", "passcheck.*"]), "passcheck.properties"],
    package_dir={"passcheck.properties": "properties"},
    # the measured pass activity `passcheck list` shows (benchmarks/pass_activity.py writes it)
    package_data={"passcheck.relax": ["pass_activity.json"]},
)
