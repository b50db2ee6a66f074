"""Draw the observation planes of one position (docs/images/envs-planes.png, for docs/envs.md).

    python tools/envs_picture.py [--rules base] [--players 2] [--seed 3] [--moves 60] [-o docs/images/envs-planes.png]

Plays `--moves` random environment actions from the seed's set-up, then draws every plane of
player 0's observation as a small map (hexes as squares, odd rows shifted half a cell, as on the
board) and writes the picture with matplotlib.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from kbdsl.envs import VERSION, Episode  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="base")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--moves", type=int, default=60)
    ap.add_argument("-o", "--output", default="docs/images/envs-planes.png")
    args = ap.parse_args()
    ep = Episode(args.rules, args.players)
    ep.reset(args.seed)
    rng = random.Random(args.seed)
    for _ in range(args.moves):
        ep.step(rng.choice(ep.legal()))
    enc = ep.enc
    planes = enc.plane_view(ep.observe(0))
    cols = 6
    rows = math.ceil(len(enc.planes) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(cols * 2.1, rows * 2.3))
    for ax, name, plane in zip(axes.flat, enc.planes, planes, strict=False):
        # odd rows half a cell to the right: draw each row as its own strip
        for r in range(plane.shape[0]):
            ax.imshow(
                plane[r : r + 1],
                extent=(r % 2 * 0.5, plane.shape[1] + r % 2 * 0.5, plane.shape[0] - r - 1, plane.shape[0] - r),
                vmin=0,
                vmax=max(1.0, float(plane.max())),
                cmap="viridis",
                interpolation="nearest",
            )
        ax.set_xlim(0, plane.shape[1] + 0.5)
        ax.set_ylim(0, plane.shape[0])
        ax.set_title(name, fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])
    for ax in list(axes.flat)[len(enc.planes) :]:
        ax.axis("off")
    fig.suptitle(
        f"kbdsl.envs observation, version {VERSION}: the {len(enc.planes)} planes of player 0 "
        f"({args.rules}, {args.players} players, after {args.moves} random actions; "
        f"then {enc.vector_size} numbers)",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(args.output, dpi=90)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
