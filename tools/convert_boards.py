"""Convert the board JSON files of ../shared/data/boards into section declarations (.kb).

Run once by a developer when the source data changes:
    python tools/convert_boards.py ../shared/data/boards rules
The package never reads the JSON at run time; the generated .kb files are the source of truth.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

# Island sides go to their own rule folder and board; everything else is a main-board section.
DESTINATION = {"base": "base/sections", "island": "island/sections", "nomads": "nomads/sections"}
DESTINATION["crossroads"] = "crossroads/sections"
BOARD = {"island": "island"}
DEALS = {"crossroads": "tasks"}  # each section of these expansions deals one card of this deck (task cards)


def render(data: dict) -> str:
    name = data["name"]
    title = name.replace("-", " ").title()
    if data["expansion"] == "island":  # one side of the double-sided Island board
        title = f"The Island ({name.removeprefix('island-').replace('-', ' ').title()} side)"
    lines = ["# Converted by tools/convert_boards.py.", f"# Source: {data['source']}"]
    if data.get("reconstructed"):
        lines.append("# RECONSTRUCTED: not the printed board. Replace the grid when the printed layout is known.")
    lines.append(f'section {name} "{title}" {{')
    board = BOARD.get(data["expansion"])
    if board:
        lines.append(f"  board: {board}")
    if data["expansion"] in DEALS:
        lines.append(f"  deals: {DEALS[data['expansion']]}")
    if data.get("reconstructed"):
        lines.append('  note: "reconstructed terrain: no public source of the printed board exists"')
    for note in data.get("notes", []):
        lines.append(f"  note: {json.dumps(note)}")
    lines.append("  grid:")
    for r, row in enumerate(data["rows"]):
        shift = " " if r % 2 else ""  # odd-r: odd rows drawn half a hex to the right
        lines.append(f"    | {shift}" + " ".join(row))
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(src: str, dest: str) -> None:
    for path in sorted(Path(src).glob("*.json")):
        data = json.loads(path.read_text())
        sub = DESTINATION.get(data["expansion"])
        if sub is None:
            continue
        out = Path(dest) / sub / f"{data['name']}.kb"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render(data))
        print(out)


if __name__ == "__main__":
    main(*sys.argv[1:3])
