"""kbdsl: Kingdom Builder with every piece of content written as data."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("kbdsl")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0+unknown"
