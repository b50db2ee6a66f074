"""kbdsl: Kingdom Builder with every piece of content written as data."""

# The one statement of the version: pyproject.toml reads it at build time (tool.setuptools.dynamic), and
# `kbdsl --version` prints it without importing importlib.metadata.
__version__ = "0.1.0"
