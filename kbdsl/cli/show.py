"""Commands that describe a rule set: `kbdsl show` (what it declares) and `kbdsl explain NAME` (in English)."""

from __future__ import annotations

import argparse
import json

from kbdsl.english import English
from kbdsl.errors import KbdslError
from kbdsl.ruleset import load
from kbdsl.suggest import did_you_mean


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("show", help="list a rule set's terrains, tiles, cards, sections, boards, presets and options")
    p.add_argument("rules", nargs="?", default="base", help="rule folder or shipped rule set's name (default: base)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(run=cmd_show)

    p = sub.add_parser("explain", help="how the engine understood a tile, card, definition, terrain or section")
    p.add_argument("name")
    p.add_argument("--rules", default="base", help="rule folder or shipped rule set's name (default: base)")
    p.set_defaults(run=cmd_explain)


def cmd_explain(args: argparse.Namespace) -> int:
    english = English(load(args.rules))
    paragraphs = english.explain(args.name)
    if not paragraphs:
        hint = did_you_mean(args.name, english.names())
        raise KbdslError(f"{args.rules} declares nothing called {args.name!r}{hint}")
    print("\n\n".join(paragraphs))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from kbdsl.protocol import describe

    data = describe(load(args.rules))
    if args.format == "json":
        print(json.dumps(data, indent=2))
        return 0
    print(show_text(data))
    return 0


def show_text(d: dict) -> str:
    """The rule set's description as tables for people (from the same data as --format json)."""
    deck = ", ".join(f"{n} {t}" for t, n in d["deck"].items())
    build = next((k for k in d["pieces"] if k["role"] == "build"), {"supply": 0, "title": "Settlement"})
    lines = [
        f"{d['title']} ({d['name']}): {d['text']}".rstrip(": "),
        f"Players {d['players']['min']}-{d['players']['max']}, {build['supply']} {build['title'].lower()}s each, "
        f"{d['cards_in_play']} cards in play; deck: {deck}",
    ]
    if d["mandatory"]:
        lines.append(f"Each turn: {d['mandatory']['text']}")

    def table(title: str, rows: list[list[str]]) -> None:
        if not rows:
            return
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
        lines.extend(["", title])
        for r in rows:
            lines.append(
                ("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1]).rstrip()
            )

    table(
        "Terrains",
        [[t["name"], t["letter"] or "", t["title"], ", ".join(t["flags"])] for t in d["terrains"]],
    )
    table(
        "Pieces",
        [
            [k["name"], k["title"], k["role"], f"x{k['supply']}" + (" shared" if k["owner"] == "none" else " each"),
             "; ".join(f"{st['key']}: {st['value']}" + (f" when {st['when']}" if st["when"] else "")
                       for st in k["settings"])]
            for k in d["pieces"]
        ],
    )  # fmt: skip
    table(
        "Tiles",
        [
            [t["name"], t["letter"] or "", t["title"], f"x{t['supply']}" if t["supply"] is not None else "granted",
             t["action"]["text"] if t["action"] else f"hand: {t['hand']}"]
            for t in d["tiles"]
        ],
    )  # fmt: skip
    table(
        "Terrain cards of several choices",
        [
            [
                c["name"],
                c["title"],
                ", ".join(f"{x['count'] or 'the mandatory count'} on {x['terrain']}" for x in c["choices"]),
            ]
            for c in d.get("terrain_cards", [])
        ],
    )
    table("Cards", [[c["name"], c["title"], " ".join(c["texts"]) or c["score"]] for c in d["cards"] if not c["deck"]])
    for name, cards in d["decks"].items():
        dealt = [s["name"] for b in d["boards"] for s in b["sections"] if s["deals"] == name]
        table(
            f"Deck {name} (one card for each of {', '.join(dealt)} in play)",
            [[c["name"], c["title"], " ".join(c["texts"]) or c["score"]] for c in d["cards"] if c["name"] in cards],
        )
    table(
        "Set-up markers",
        [
            [m["name"], m["title"], f"{m['count']} {m['marker']} on {m['on']}"
             + (f" per section ({', '.join(m['sections'])})" if m["per"] == "section" and m["sections"] else
                " per section" if m["per"] == "section" else "")]
            for m in d.get("setups", [])
        ],
    )  # fmt: skip
    table("Always scored", [[c["name"], c["title"], " ".join(c["texts"]) or c["score"]] for c in d["scorings"]])
    table(
        "Boards and sections",
        [
            [b["name"], f"{b['grid'][0]}x{b['grid'][1]}" + (" turnable" if b["turnable"] else ""),
             " ".join(s["name"] for s in b["sections"])]
            for b in d["boards"]
        ],
    )  # fmt: skip
    table(
        "Sections with a text",
        [[s["name"], s["title"], " ".join(s["texts"])] for b in d["boards"] for s in b["sections"] if s["texts"]],
    )
    table(
        "Presets",
        [
            [p["name"], "; ".join(f"{b}: {' '.join(s)}" for b, s in p["sections"].items()) or "-",
             ", ".join(p["cards"]) or "-"]
            for p in d["presets"]
        ],
    )  # fmt: skip
    table(
        "Options",
        [[o["name"], "on" if o["default"] else "off", o["text"]] for o in d["options"]],
    )
    return "\n".join(lines)
