"""Rule declarations in plain English, generated from the parsed objects (`kbdsl explain`).

The point is to show how the engine understood a rule, so the wording follows the syntax
tree closely: an author reads it and sees at once whether the text says what they meant.
Names are shown by their titles from the rule set; the words of the language are described
from the vocabulary tables of kbdsl.expr, so nothing here names content.
"""

from __future__ import annotations

from kbdsl.expr import HEX_WORDS
from kbdsl.lang import ast
from kbdsl.lang.unparse import unparse
from kbdsl.ruleset import RuleSet
from kbdsl.wording import counted

#: Short nouns for the bare hex-set words, where the reference wording (HEX_WORDS) reads long.
NOUNS = {
    "own": "their settlements",
    "other": "other players' settlements",
    "occupied": "settlements of any player",
    "empty": "empty hexes",
    "buildable": "buildable hexes",
    "all": "all hexes",
    "origin": "the hex the moved settlement starts from",
}
#: Domains of `per` and `over`, as "each ..." phrases.
EACH = {
    "settlement": "each of their settlements",
    "hex": "each hex",
    "line": "each horizontal line",
    "sector": "each sector",
    "area": "each of their settlement areas",
}
COMPARE = {
    ">=": "is at least",
    "<=": "is at most",
    ">": "is more than",
    "<": "is less than",
    "==": "is",
    "!=": "is not",
}
ARITHMETIC = {"+": "plus", "-": "minus", "*": "times", "//": "divided by"}
AGGREGATE = {"max": "the largest", "min": "the smallest", "sum": "the total"}
ORDINALS = ("most", "second most", "third most", "fourth most", "fifth most")


class English:
    """Turns declarations of one rule set into sentences."""

    def __init__(self, rules: RuleSet):
        self.rules = rules
        self.moved = "settlement"  # what a move's target phrases call the moved piece

    # -- declarations ------------------------------------------------------------------
    def explain(self, name: str) -> list[str]:
        """A paragraph for every declaration called `name` (a tile and a section may share one)."""
        r = self.rules
        out = []
        if name in r.tiles:
            out.append(self.tile(r.tiles[name]))
        if name in r.cards or name in r.scorings:
            out.append(self.card(r.cards.get(name) or r.scorings[name]))
        if name in r.defines:
            out.append(f"Definition {name!r}: {self.expr(r.defines[name].expr)}.")
        if name in r.terrains:
            out.append(self.terrain(r.terrains[name]))
        if name in r.sections:
            out.append(self.section(r.sections[name]))
        if name in r.faces:
            out.append(self.terrain_card(name))
        return [self._member(name, text) for text in out]

    def _member(self, name: str, text: str) -> str:
        """A member of a family says so (which value it was made for)."""
        r = self.rules
        decl = r.tiles.get(name) or r.cards.get(name) or r.scorings.get(name) or r.terrains.get(name)
        decl = decl or r.sections.get(name) or (r.face_settings[name].decl if name in r.face_settings else None)
        family = getattr(decl, "family", None)
        return f"{text} (A member of a family, for {family}.)" if family else text

    def terrain_card(self, name: str) -> str:
        decl = self.rules.face_settings[name].decl
        title = decl.title if decl is not None else name
        count = self.rules.mandatory[0].count if self.rules.mandatory else 0
        choices = " or ".join(
            f"{n or count} on {self.rules.terrains[t].title.lower()}" for t, n in self.rules.faces[name]
        )
        cards = self.rules.deck.get(name, 0)
        return (
            f"Terrain card {title!r} ({name}), {cards} in the deck: the mandatory action builds {choices}, "
            "never some on each; the first settlement fixes the choice."
        )

    def names(self) -> list[str]:
        r = self.rules
        return [*r.tiles, *r.cards, *r.scorings, *r.defines, *r.terrains, *r.sections, *r.faces]

    def grant(self, t: ast.Tile) -> str:
        """An action the board grants (kbdsl.engine.grants): who, how often, when."""
        st = self.rules.grant_settings[t.name].resolve(self.rules.option_defaults())
        who = "every player" if t.grant.to is None else f"each player for whom {unparse(t.grant.to)} holds"
        uses = t.grant.uses
        times = "once" if uses is None else f"as many times as {unparse(uses)}"
        if isinstance(uses, ast.Num):
            times = "once" if uses.value == 1 else counted(uses.value, "time")
        when = {
            "turns": "in each of their turns" + (", once a game" if st["use"] == "once" else ""),
            "end-of-game": "in one more turn once the game is over, before scoring",
            "start-of-game": "in a turn before the first one",
            "last-tile-taken": "in another player's turn, when a move takes a hex's last tile",
        }[st["phase"]]
        head = f"Action {t.title!r} ({t.name}), granted by the board"
        return f"{head}: {who} may, {times} {when}, {self.action(t.action)}."

    def tile(self, t: ast.Tile) -> str:
        if t.grant is not None:
            return self.grant(t)
        if t.given is not None:
            head = (
                f"Tile {t.title!r} ({t.name}): {t.supply} in a stock, one given to a player when "
                f"{self.condition(t.given)}, as they take a tile."
            )
        elif t.pool is not None:
            head = (
                f"Tile {t.title!r} ({t.name}): {counted(t.copies or 1, 'copy')} in the {t.pool} pool, dealt at setup."
            )
        else:
            supply = counted(t.supply or 0, "tile")
            head = f"Tile {t.title!r} ({t.name}): location letter {t.letter}, {supply} on each location hex."
        hand = self.rules.tile_hand(t.name)
        if hand:
            head += f" Its holder draws {hand} terrain cards at the end of each turn and plays one of them."
        if t.action is None:
            return head
        life = self.rules.tile_lifecycle[t.name].resolve(self.rules.option_defaults())
        when = "Once per turn" if life["use"] == "once-per-turn" else "Once, and then it leaves the game"
        if life["first-use"] == "when-gained":
            when = "The moment it is taken"
        return f"{head} {when}, its holder may {self.action(t.action)}."

    def card(self, c: ast.Card) -> str:
        kind = "Scoring (every game)" if c.always else "Kingdom Builder card"
        score = self.number(c.score) if c.score is not None else "nothing"
        return f"{kind} {c.title!r} ({c.name}): at the end of the game each player scores {score}."

    def terrain(self, t: ast.Terrain) -> str:
        traits = [("buildable" if "buildable" in t.flags else "not buildable")]
        if "special" in t.flags:
            traits.append("special (counts as a special hex)")
        cards = self.rules.deck.get(t.name, 0)
        deck = f"; the deck has {counted(cards, 'card')} of it" if cards else "; no card of the deck shows it"
        return f"Terrain {t.title!r} ({t.name}): letter {t.letter}, {', '.join(traits)}{deck}."

    def section(self, s: ast.Section) -> str:
        counts: dict[str, int] = {}
        for row in s.rows:
            for cell in row:
                kind, what = self.rules.legend.get(cell.letter, ("?", cell.letter))
                title = self._title(kind, what)
                counts[title] = counts.get(title, 0) + 1
        board = s.board or self.rules.primary_board.name
        parts = ", ".join(f"{n} {t}" for t, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])))
        size = f"{len(s.rows)} rows of {len(s.rows[0]) if s.rows else 0} hexes"
        return f"Section {s.title!r} ({s.name}) of board {board}: {size}: {parts}."

    def _title(self, kind: str, name: str) -> str:
        if kind == "terrain":
            return self.rules.terrains[name].title
        if kind == "location":
            return f"{self.rules.tiles[name].title} location"
        return name

    # -- actions -----------------------------------------------------------------------
    def action(self, a: ast.Action) -> str:
        """An action as a verb phrase: a choice is joined by "or", an action that follows by "then"."""
        if a.kind == "or":
            return "; or ".join(self.action(part) for part in a.parts)
        text = self._one(a)
        return f"{text}, then {self.action(a.then)}" if a.then is not None else text

    def _one(self, a: ast.Action) -> str:
        near = ", next to their own settlements if possible" if a.adjacent_if_possible else ""
        if "adjacent" in a.modifiers:
            near = ", next to their own pieces"
        times = f", up to {a.count} times" if a.up_to else f", {a.count} times" if a.count > 1 else ""
        if a.kind == "build":
            what = "one settlement" if a.count == 1 else f"{a.count} settlements"
            return f"build {what} from their supply on {self.hexes(a.target)}{near}"
        if a.kind == "place":
            shared = a.piece in self.rules.neutral
            supply = "the shared supply" if shared else "their supply"
            where = f"{self.hexes(a.target)}{near}{times}"
            return f"place one {self._piece(a.piece)} from {supply} on {where}"
        if a.kind == "return":
            return f"take one {self._piece(a.piece)} of theirs back from the board to their supply"
        if a.kind == "remove":
            whose = "one piece of each other player" if "per-opponent" in a.modifiers else "a piece of another player"
            return f"remove {whose} standing on {self.hexes(a.target)}, back to its owner's supply"
        if a.kind == "draw":
            return "draw the top terrain card and put it face up on the discard pile"
        if a.kind == "gold":
            return f"gain {a.count} gold"
        if a.kind == "ignore":
            return f"waive {a.modifiers[0]} for their next settlement"
        if a.kind == "later":
            if a.modifiers:
                return f"waive {a.modifiers[0]} for the first settlement of their next turn"
            return f"build {counted(a.count, 'settlement')} more in the mandatory action of their next turn"
        source = f" standing on {self.hexes(a.source)}" if a.source is not None else ""
        self.moved = self._piece(a.piece) if a.piece else "settlement"
        try:
            who = f"their {self.moved}" if a.piece else "one of their settlements"
            return f"move {who}{source} to {self.hexes(a.target)}{near}{times}"
        finally:
            self.moved = "settlement"

    def _piece(self, kind: str | None) -> str:
        decl = self.rules.pieces.get(kind or self.rules.piece_kind)
        return decl.title.lower() if decl is not None else (kind or "settlement")

    # -- expressions ---------------------------------------------------------------------
    def expr(self, node: ast.Expr) -> str:
        """Any expression, by what it is: a number, a hex set or a condition."""
        if isinstance(node, (ast.Compare, ast.Not)) or (isinstance(node, ast.Call) and node.name == "option"):
            return self.condition(node)
        if isinstance(node, (ast.Num, ast.BinOp, ast.Per, ast.Aggregate)) or (
            isinstance(node, ast.Call) and node.name == "count"
        ):
            return self.number(node)
        if isinstance(node, ast.BoolOp) and self._is_condition(node):
            return self.condition(node)
        return self.hexes(node)

    def _is_condition(self, node: ast.Expr) -> bool:
        if isinstance(node, ast.Compare) or (isinstance(node, ast.Call) and node.name == "option"):
            return True
        if isinstance(node, ast.Not):
            return self._is_condition(node.operand)
        if isinstance(node, ast.BoolOp):
            return self._is_condition(node.left) or self._is_condition(node.right)
        if isinstance(node, ast.Ref) and node.name in self.rules.defines:
            return self._is_condition(self.rules.defines[node.name].expr)
        return False

    def hexes(self, node: ast.Expr) -> str:
        """A hex set as a noun phrase ("hexes ...")."""
        if isinstance(node, ast.Ref):
            if node.name in self.rules.defines:
                return f"{node.name} ({self.expr(self.rules.defines[node.name].expr)})"
            if node.name == "origin":
                return f"the hex the moved {self.moved} starts from"
            return NOUNS.get(node.name) or HEX_WORDS.get(node.name, node.name)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Not):
            return f"hexes that are not {self._part(node.operand)}"
        if isinstance(node, ast.BoolOp):
            same = isinstance(node.left, ast.BoolOp) and node.left.op == node.op  # `a & b & c` reads as a list
            left = self.hexes(node.left) if same else self._part(node.left)
            if node.op == "|":
                return f"{left} or {self._part(node.right)}"
            return f"{left}, among them only {self._part(node.right)}"
        return self.expr(node)

    def _part(self, node: ast.Expr) -> str:
        """A hex set inside a larger phrase: a combination of sets (`&`, `|`) in brackets, so that
        `next-to(A & B)` and `next-to(A) & B` never read alike (distinct trees give distinct text)."""
        text = self.hexes(node)
        return f"({text})" if isinstance(node, ast.BoolOp) else text

    def _call(self, node: ast.Call) -> str:
        args, name = node.args, node.name
        words = [a.name if isinstance(a, ast.Ref) else "" for a in args]
        if name == "terrain":
            if words == ["card"]:
                return "hexes of the terrain of the card they played"
            if words == ["drawn"]:
                return "hexes of the terrain of the card the action drew"
            if words == ["removed"]:
                return "hexes of the terrain whose cards this card took out of the deck"
            titles = [self.rules.terrains[w].title if w in self.rules.terrains else w for w in words]
            return f"{' or '.join(titles)} hexes"
        if name == "location":
            titles = [self.rules.tiles[w].title if w in self.rules.tiles else w for w in words]
            return f"{' or '.join(titles)} location hexes"
        if name == "next-to":
            if len(args) == 2:
                return f"hexes next to at least {self.number(args[1])} of {self._part(args[0])}"
            return f"hexes next to {self._part(args[0])}"
        if name == "within":
            return f"hexes 1 to {self.number(args[0])} steps from {self._part(args[1])} (on the same board)"
        if name == "connected-by-own-to":
            return f"hexes linked by a chain of their settlements to another of {self._part(args[0])}"
        if name == "line-end":
            return (
                f"hexes just past either end of a straight line of {self.number(args[1])} or more {self._part(args[0])}"
            )
        if name == "straight":
            return f"hexes exactly {self.number(args[0])} steps in a straight line from the moved {self.moved}"
        if name == "ray":
            return f"in each direction, the first of {self.hexes(args[0])} met stepping from the moved {self.moved}"
        if name == "held":
            titles = [self.rules.tiles[w].title if w in self.rules.tiles else w for w in words]
            return f"the number of {' or '.join(titles)} tiles they hold"
        if name == "slide":
            return (
                f"in each direction, the last hex reached by stepping from the moved {self.moved} through "
                f"{self._part(args[0])}"
            )
        if name == "same-terrain":
            return f"hexes of the terrain of one of {self._part(args[0])}"
        if name == "straight-run":
            return f"{self._part(args[0])} in a straight run of at least {self.number(args[1])} in a row"
        if name == "diagonal-run":
            return f"{self._part(args[0])} in a diagonal run of at least {self.number(args[1])} in a row"
        if name == "aligned":
            return f"{self._part(args[0])} on a straight line that holds at least {self.number(args[1])} of them"
        return f"{name}({', '.join(self.expr(a) for a in args)})"

    def number(self, node: ast.Expr) -> str:
        """A number as a phrase ("2 gold for each ...")."""
        if isinstance(node, ast.Num):
            return str(node.value)
        if isinstance(node, ast.BinOp):
            left, right = (self._operand(x) for x in (node.left, node.right))
            rounded = ", rounded down" if node.op == "//" else ""
            return f"{left} {ARITHMETIC[node.op]} {right}{rounded}"
        if isinstance(node, ast.Call) and node.name == "count":
            return f"the number of {self._part(node.args[0])}" if node.args else "a count"
        if isinstance(node, ast.Ref) and node.name in self.rules.defines:
            return f"{node.name} ({self.expr(self.rules.defines[node.name].expr)})"
        if isinstance(node, ast.Per):
            return f"{node.amount} for {self._each(node.domain, node.where)}"
        if isinstance(node, ast.Aggregate):
            return self._aggregate(node)
        return self.expr(node)

    def _operand(self, node: ast.Expr) -> str:
        text = self.number(node)
        return text if isinstance(node, (ast.Num, ast.Call, ast.Ref)) else f"({text})"

    def _each(self, domain: str, where: ast.Expr | None) -> str:
        each = EACH.get(domain, f"each {domain}")
        if where is None:
            return each
        if domain in ("settlement", "hex"):
            return f"{each} that is one of {self.hexes(where)}"  # the end of its phrase: no brackets needed
        return f"{each} where {self.condition(where, inside=domain)}"

    def _aggregate(self, node: ast.Aggregate) -> str:
        over = self._each(node.domain, node.where)
        value = self.number(node.expr)
        if node.fn == "rank":
            pays = ", ".join(
                f"{gold} to each player with the {ORDINALS[i] if i < len(ORDINALS) else f'{i + 1}th most'}"
                for i, gold in enumerate(node.payouts)
            )
            return f"for {over}, ranking the players by {value} there: {pays}"
        return f"{AGGREGATE.get(node.fn, node.fn)} value of {value} over {over}"

    def condition(self, node: ast.Expr, inside: str | None = None) -> str:
        """A truth value as a clause ("the number of ... is at least 1")."""
        if isinstance(node, ast.Compare):
            return f"{self.number(node.left)} {COMPARE[node.op]} {self.number(node.right)}"
        if isinstance(node, ast.Call) and node.name == "option":
            name = node.args[0].name if node.args and isinstance(node.args[0], ast.Ref) else "?"
            return f"the rule option {name!r} is on"
        if isinstance(node, ast.Not):
            return f"not ({self.condition(node.operand, inside)})"
        if isinstance(node, ast.BoolOp):
            word = "and" if node.op == "&" else "or"
            return f"({self.condition(node.left, inside)}) {word} ({self.condition(node.right, inside)})"
        if isinstance(node, ast.Ref) and node.name in self.rules.defines:
            return f"{node.name} ({self.condition(self.rules.defines[node.name].expr, inside)})"
        return f"it has {self._part(node)}"
