"""Playing in the terminal (filled in by the turn-engine work)."""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    return None
