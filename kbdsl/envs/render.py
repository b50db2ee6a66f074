"""Pictures of an episode for the environments' `render()`: the terminal board and the SVG as pixels.

The SVG is rasterised by CairoSVG (the `png` extra, which `rl` pulls in: the same library as
`kbdsl render -o board.png`, so there is one rasteriser in the project) and decoded by Pillow.
"""

from __future__ import annotations

import io

import numpy as np

from kbdsl.engine.state import State
from kbdsl.render import svg, terminal


def ansi(state: State) -> str:
    """The board and status panel as `kbdsl play` prints them, seen by a spectator."""
    return terminal.render(state, [f"player_{p}" for p in range(state.players)])


def rgb_array(state: State, width: int = 640) -> np.ndarray:
    """The SVG board as an (height, width, 3) uint8 array."""
    import cairosvg
    from PIL import Image

    png = cairosvg.svg2png(bytestring=str(svg.board(state, size=width)).encode("utf-8"))
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
