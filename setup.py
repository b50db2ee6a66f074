"""Package discovery, the one thing pyproject.toml cannot say: every package under kbdsl/ is found, never
listed by hand, and the two data folders kept at the top of the repository (see package-dir) join them."""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["kbdsl", "kbdsl.*"]), "kbdsl.rules", "kbdsl.schemas"])
