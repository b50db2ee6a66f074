"""Scenario files: a position plus what must hold there (scores, targets, illegal moves).

Rule authors check new content with these the way chess programmers check move
generators with perft suites. `run` never raises for a bad scenario: every problem,
in the file or in the rules, comes back as a positioned finding.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kbdsl.errors import Diagnostic, IllegalMove, KbdslError, Pos, RuleError, SetupError
from kbdsl.game import Game, Setup, State
from kbdsl.moves import Move
from kbdsl.perft import perft
from kbdsl.position import Layout
from kbdsl.resources import MANIFEST, shipped, shipped_path
from kbdsl.ruleset import RuleSet, load
from kbdsl.suggest import did_you_mean
from kbdsl.yamlio import KEY, Document, read_yaml, validate
from kbdsl.wording import counted

SCENARIO_DIR = "scenarios"


@dataclass
class Outcome:
    path: str
    name: str
    failures: list[Diagnostic] = field(default_factory=list)
    checks: int = 0

    @property
    def ok(self) -> bool:
        return not self.failures


def find(paths: list[str]) -> list[Path]:
    """Scenario files: files given directly, and every *.yaml below a `scenarios/` folder
    (except game manifests, so test-only rule folders can live beside the scenarios)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            inside = SCENARIO_DIR in p.resolve().parts
            out.extend(
                f
                for f in sorted(p.rglob("*.yaml"))
                if f.name != MANIFEST and (inside or SCENARIO_DIR in f.relative_to(p).parts[:-1])
            )
    return sorted(dict.fromkeys(out))


class Runner:
    """Runs scenarios, loading each rule set once."""

    def __init__(self) -> None:
        self._rules: dict[Path, RuleSet] = {}

    def rules_for(self, doc: Document) -> RuleSet:
        folder = rules_folder(doc)
        key = folder.resolve()
        if key not in self._rules:
            self._rules[key] = load(folder)
        return self._rules[key]

    @staticmethod
    def name_of(path: str | Path) -> str:
        """A scenario's name without running it (for `-k`); a file that does not read gives its stem."""
        try:
            name = read_yaml(path).data.get("name")
        except (RuleError, AttributeError):
            name = None
        return name if isinstance(name, str) else Path(path).stem

    def run(self, path: str | Path) -> Outcome:
        out = Outcome(str(path), Path(path).stem)
        arranged = self._arranged(path, out)
        if arranged is not None:
            _Checks(*arranged, out).run()
        return out

    def lint(self, path: str | Path) -> list[Diagnostic]:
        """What `kbdsl lint` reports about a scenario: all `run` finds before it judges the expectations
        (schema, rules, names, hexes, moves), and the action names and hexes the expectations use."""
        out = Outcome(str(path), Path(path).stem)
        arranged = self._arranged(path, out)
        if arranged is not None:
            _Checks(*arranged, out).check_names()
        return out.failures

    def _arranged(self, path: str | Path, out: Outcome) -> tuple[Document, State] | None:
        """The scenario's document and position, or None with the findings in `out`."""
        try:
            doc = read_yaml(path)
            validate(doc, "scenario")
            out.name = doc.data["name"]
            rules = self.rules_for(doc)
        except RuleError as e:
            out.failures.extend(e.diagnostics)
            return None
        try:
            return doc, self.arrange(doc, rules)
        except RuleError as e:
            out.failures.extend(e.diagnostics)
        except KbdslError as e:
            out.failures.append(Diagnostic(doc.pos(), f"cannot set up the scenario: {e}", "S001"))
        return None

    def arrange(self, doc: Document, rules: RuleSet) -> State:
        """The scenario's position; a bad value raises RuleError at its own line and column (S001)."""
        d = doc.data
        settlements = d.get("settlements", [])
        spec = d.get("state", {})
        players = d.get("players") or max(
            len(settlements), len(spec.get("hand", [])), len(spec.get("tiles", [])), rules.players[0]
        )
        sections = d.get("sections")
        if sections is None:
            raise RuleError([Diagnostic(doc.pos(), "the scenario names no sections", "S001")])
        _check_names(doc, rules)
        with _located(doc, "sections"):
            layout = Layout.of(rules, sections)
        with _located(doc):
            game = Game(
                rules, Setup(players, layout, tuple(d.get("cards", [])), d.get("seed", 0), d.get("options", {}))
            )
        board = game.board
        for p, hexes in enumerate(settlements):
            for i, h in enumerate(hexes):
                with _located(doc, "settlements", p, i):
                    board.hex(h)
        for p, held in enumerate(spec.get("tiles") or ()):
            for i, x in enumerate(held):
                with _located(doc, "state", "tiles", p, i, "at"):
                    at = board.hex(x["at"])
                    given = x["tile"] in rules.given  # checked by State.arrange: any tile hex
                    if board.graph.nodes[at]["location"] != x["tile"] and not (
                        given or _pool_hex(rules, board, at, x["tile"])
                    ):
                        raise SetupError(f"{at} is not a location hex of tile {x['tile']!r}")
        for h in spec.get("location_supply") or {}:
            with _located(doc, "state", "location_supply", h, KEY):
                board.hex(h)
        with _located(doc, "state"):
            state = State.arrange(
                game,
                settlements,
                current=spec.get("current", 0),
                start=spec.get("start", 0),
                hand=spec.get("hand"),
                built=spec.get("built", 0),
                supply=spec.get("supply"),
                tiles=spec.get("tiles"),
                location_supply=spec.get("location_supply"),
                ending=spec.get("ending", False),
                neutral=spec.get("neutral"),
                gold=spec.get("gold"),
                dealt=spec.get("dealt"),
                kinds=spec.get("kinds"),
                spare=spec.get("spare"),
                deck=spec.get("deck"),
                discard=spec.get("discard"),
                kind_supply=spec.get("kind_supply"),
            )
        for i, m in enumerate(d.get("moves", [])):
            with _located(doc, "moves", i):
                try:
                    state.play(Move.from_json(m))
                except IllegalMove as e:
                    raise SetupError(f"move {i + 1} ({e.move}) is illegal: {e.reason}") from None
        return state


def rules_folder(doc: Document) -> Path:
    """The rule folder a scenario's `rules` names: a folder relative to the scenario file that holds
    a game manifest, else a shipped rule set of that name (never a folder of the working directory)."""
    spec = doc.data.get("rules", "base")
    local = Path(doc.path).parent / spec
    if (local / MANIFEST).is_file() or (local.name == MANIFEST and local.is_file()):
        return local
    found = shipped_path(spec)
    if found is not None:
        return found
    hint = "" if "/" in spec else f", and no shipped rule set of that name{did_you_mean(spec, shipped())}"
    raise doc.error(f"rules {spec!r}: no game manifest at {local} (relative to the scenario file){hint}", "rules")


def scenario_position(path: str | Path) -> State:
    """The position a scenario file sets up, its moves played (what `score`, `perft` and `render` show)."""
    runner = Runner()
    doc = read_yaml(path)
    validate(doc, "scenario")
    return runner.arrange(doc, runner.rules_for(doc))


def _pool_hex(rules: RuleSet, board, at: str, tile: str) -> bool:
    """Whether hex `at` is a hex the pool of `tile` is dealt onto."""
    d = rules.tiles.get(tile)
    pool = rules.pools.get(d.pool) if d is not None and d.pool else None
    return pool is not None and board.graph.nodes[at]["terrain"] == pool.on


def _check_names(doc: Document, rules: RuleSet) -> None:
    """Names the scenario uses that the rule set does not declare, each at its place, with a suggestion."""
    d, found = doc.data, []

    def check(name: Any, known: Any, what: str, *where: Any) -> None:
        if isinstance(name, str) and name not in known:
            msg = f"unknown {what} {name!r}{did_you_mean(name, known)}"
            found.append(Diagnostic(doc.pos(*where), msg, "S001"))

    sections = d.get("sections")
    items = sections.items() if isinstance(sections, dict) else [(None, sections or [])]
    for board, names in items:
        if board is not None:
            check(board, [b.name for b in rules.boards], "board", "sections", board, KEY)
        for i, n in enumerate(names):
            where = ("sections", board, i) if board is not None else ("sections", i)
            check(n.split("@")[0] if isinstance(n, str) else n, rules.sections, "section", *where)
    for i, c in enumerate(d.get("cards", [])):
        check(c, rules.cards, "card", "cards", i)
    for k in d.get("options", {}):
        check(k, rules.options, "rule option", "options", k, KEY)
    spec = d.get("state", {})
    for p, h in enumerate(spec.get("hand") or ()):
        if h is not None:
            check(h, rules.deck, "terrain card", "state", "hand", p)
    for p, held in enumerate(spec.get("tiles") or ()):
        for i, x in enumerate(held):
            check(x.get("tile"), rules.tiles, "tile", "state", "tiles", p, i, "tile")
    if found:
        raise RuleError(found)


@contextmanager
def _located(doc: Document, *where: Any):
    """Turn a setup error raised inside into a finding at the value `where` points to."""
    try:
        yield
    except SetupError as e:
        raise RuleError([Diagnostic(doc.pos(*where), str(e), "S001")]) from None


class _Checks:
    def __init__(self, doc: Document, state: State, out: Outcome):
        self.doc, self.game_state, self.out = doc, state, out
        self.expect = doc.data["expect"]

    def fail(self, msg: str, *where: Any) -> None:
        self.out.failures.append(Diagnostic(self.doc.pos("expect", *where), msg, "S100"))

    def check(self, ok: bool, msg: str, *where: Any) -> None:
        self.out.checks += 1
        if not ok:
            self.fail(msg, *where)

    def run(self) -> None:
        for key in ("scores", "targets", "illegal", "state", "game_over", "winners", "perft"):
            if key in self.expect:
                try:
                    getattr(self, f"check_{key}")(self.expect[key])
                except KbdslError as e:
                    self.fail(str(e), key)

    def check_scores(self, expected: list[dict[str, int]]) -> None:
        sheets = self.game_state.scores()
        if len(expected) > len(sheets):
            self.fail(f"scores are given for {counted(len(expected), 'player')}, the game has {len(sheets)}", "scores")
            return
        for p, exp in enumerate(expected):
            for key, value in exp.items():
                got = sheets[p].get(key)
                if got is None:
                    self.fail(
                        f"player {p}: no scorer {key!r} in this game (it has {', '.join(sheets[p])})", "scores", p, key
                    )
                    continue
                self.check(got == value, f"player {p} {key}: expected {value}, got {got}", "scores", p, key)

    def _hexes(self, names: list[str], *where: Any) -> list[str]:
        """The named hexes, in board order; a name that is no hex fails at its own place."""
        board, out = self.game_state.game.board, []
        for i, h in enumerate(names):
            try:
                out.append(board.hex(h))
            except SetupError as e:
                self.fail(str(e), *where, i)
        return sorted(out, key=self.game_state.game.tables.index.get)

    def _known_action(self, action: str, i: int) -> bool:
        rules = self.game_state.game.rules
        if action != "build" and action not in rules.actions:
            hint = did_you_mean(action, ["build", *rules.actions])
            self.fail(f"unknown action {action!r} (build or a tile){hint}", "targets", i, "action")
            return False
        return True

    def check_names(self) -> None:
        """The action names and hexes of `expect.targets`, without judging them (for `kbdsl lint`)."""
        for i, item in enumerate(self.expect.get("targets", [])):
            self._known_action(item["action"], i)
            for key in ("hexes", "include", "exclude", "sources"):
                self._hexes(item.get(key, []), "targets", i, key)

    def check_targets(self, items: list[dict]) -> None:
        for i, item in enumerate(items):
            action, frm = item["action"], item.get("from")
            if not self._known_action(action, i):
                continue
            got = self.game_state.targets(action, frm)
            if "hexes" in item:
                want = self._hexes(item["hexes"], "targets", i, "hexes")
                self.check(
                    got == want,
                    f"{action} targets: expected {_fmt(want)}, got {_fmt(got)}"
                    f" (missing {_fmt(sorted(set(want) - set(got)))}, extra {_fmt(sorted(set(got) - set(want)))})",
                    "targets",
                    i,
                    "hexes",
                )
            for h in self._hexes(item.get("include", []), "targets", i, "include"):
                self.check(h in got, f"{action} targets: expected {h} to be legal, it is not", "targets", i, "include")
            for h in self._hexes(item.get("exclude", []), "targets", i, "exclude"):
                self.check(
                    h not in got, f"{action} targets: expected {h} to be illegal, it is legal", "targets", i, "exclude"
                )
            if "sources" in item:
                want = self._hexes(item["sources"], "targets", i, "sources")
                got_src = self.game_state.sources(action)
                self.check(
                    got_src == want,
                    f"{action} sources: expected {_fmt(want)}, got {_fmt(got_src)}",
                    "targets",
                    i,
                    "sources",
                )

    def check_illegal(self, items: list[dict]) -> None:
        for i, item in enumerate(items):
            move = Move.from_json(item["move"])
            trial = self.game_state.clone()
            before = trial.key()
            try:
                trial.play(move)
            except IllegalMove as e:
                self.check(trial.key() == before, f"illegal move {move} changed the state", "illegal", i)
                reason = item.get("reason")
                self.check(
                    reason is None or reason.lower() in e.reason.lower(),
                    f"move {move} is illegal, but for another reason: {e.reason}",
                    "illegal",
                    i,
                    "reason",
                )
            else:
                self.check(False, f"move {move} was expected to be illegal, but it was played", "illegal", i)

    def check_state(self, exp: dict) -> None:
        s = self.game_state
        actual = s.to_json()
        simple = {
            "current": actual["current"],
            "start": actual["start"],
            "supply": actual["supply"],
            "hand": actual["hand"],
            "ending": actual["ending"],
            "built": actual["built"],
            "location_supply": actual["location_supply"],
            "stock": actual["stock"],
            "gold": actual["gold"],
        }
        for key, want in exp.items():
            if key == "tiles":
                got = [[{k: v for k, v in x.items()} for x in ts] for ts in actual["tiles"]]
                want_norm = [
                    [
                        {
                            "tile": x["tile"],
                            "at": s.game.board.hex(x["at"]),
                            "used": x.get("used", False),
                            "new": x.get("new", False),
                        }
                        for x in ts
                    ]
                    for ts in want
                ]
                self.check(
                    _sorted_tiles(got) == _sorted_tiles(want_norm),
                    f"tiles: expected {want_norm}, got {got}",
                    "state",
                    key,
                )
            elif key in ("neutral", "dealt"):
                want_norm = {
                    s.game.board.hex(h) if key == "dealt" else h: v
                    if key == "dealt"
                    else sorted(map(s.game.board.hex, v))
                    for h, v in want.items()
                }
                got = (
                    actual[key] if key == "dealt" else {k: sorted(v) for k, v in actual[key].items() if v or k in want}
                )
                self.check(got == want_norm, f"{key}: expected {want_norm}, got {got}", "state", key)
            elif key in ("kinds", "settlements"):
                hexes = lambda hs: sorted(map(s.game.board.hex, hs))  # noqa: E731
                got = actual.get(key, {}) if key == "kinds" else actual[key]
                if key == "kinds":
                    got = {k: [sorted(x) for x in got.get(k, [])] for k in want}
                    want = {k: [hexes(x) for x in v] for k, v in want.items()}
                else:
                    got, want = [sorted(x) for x in got], [hexes(x) for x in want]
                self.check(got == want, f"{key}: expected {want}, got {got}", "state", key)
            elif key in ("kind_supply", "spare", "discard", "drawn", "wild"):
                got = actual.get(key)
                if key == "kind_supply":
                    got = {k: (got or {}).get(k) for k in want}
                self.check(got == want, f"{key}: expected {want}, got {got}", "state", key)
            elif key == "location_supply":
                for h, v in want.items():
                    name = s.game.board.hex(h)
                    self.check(
                        simple[key].get(name) == v,
                        f"location {name}: expected {counted(v, 'tile')} left, got {simple[key].get(name)}",
                        "state",
                        key,
                        h,
                    )
            else:
                self.check(simple[key] == want, f"{key}: expected {want}, got {simple[key]}", "state", key)

    def check_game_over(self, want: bool) -> None:
        self.check(self.game_state.over == want, f"game over: expected {want}, got {self.game_state.over}", "game_over")

    def check_perft(self, items: list[dict]) -> None:
        for i, item in enumerate(items):
            got = perft(self.game_state, item["depth"])
            self.check(
                got == item["nodes"],
                f"perft depth {item['depth']}: expected {item['nodes']}, got {got}",
                "perft",
                i,
                "nodes",
            )

    def check_winners(self, want: list[int]) -> None:
        got = self.game_state.winners()
        self.check(got == sorted(want), f"winners: expected {sorted(want)}, got {got}", "winners")


def _fmt(hexes: list[str]) -> str:
    return "[" + " ".join(hexes) + "]"


def _sorted_tiles(tiles: list[list[dict]]) -> list[list[tuple]]:
    return [sorted((x["tile"], x["at"], x["used"], x["new"]) for x in ts) for ts in tiles]


__all__ = ["Outcome", "Runner", "find", "Pos"]
