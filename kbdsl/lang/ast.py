"""Typed, immutable syntax tree of rule files; every node knows where it was written."""

from __future__ import annotations

from dataclasses import dataclass, field

from kbdsl.errors import Pos


@dataclass(frozen=True)
class Node:
    pos: Pos = field(compare=False, repr=False, kw_only=True)


# ---- expressions -----------------------------------------------------------
@dataclass(frozen=True)
class Num(Node):
    value: int


@dataclass(frozen=True)
class Ref(Node):
    """A bare word: a primitive (own, edge, ...), a define, a domain or a name argument."""

    name: str


@dataclass(frozen=True)
class Call(Node):
    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Aggregate(Node):
    """`fn(expr over domain where cond pays a, b)`: max/min/sum/count/rank over items."""

    fn: str
    expr: Expr
    domain: str
    where: Expr | None = None
    payouts: tuple[int, ...] = ()
    domain_pos: Pos | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Per(Node):
    """`n per domain where cond`: n times the number of domain items meeting cond."""

    amount: int
    domain: str
    where: Expr | None = None
    domain_pos: Pos | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Not(Node):
    operand: Expr


@dataclass(frozen=True)
class BoolOp(Node):
    op: str  # "&" or "|"
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Compare(Node):
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class BinOp(Node):
    op: str  # + - * //
    left: Expr
    right: Expr


Expr = Num | Ref | Call | Aggregate | Per | Not | BoolOp | Compare | BinOp


# ---- actions ---------------------------------------------------------------
@dataclass(frozen=True)
class Action(Node):
    """One action of a tile or the turn: build, place, move, remove, gold or ignore.

    `count` steps (`up_to`: the player may stop after any), each onto a hex of `target`;
    `piece` is the kind placed (`place`); `count` is the gold paid (`gold`); `ignore`'s
    modifier is in `modifiers`."""

    kind: str  # "build" | "move" | "place" | "remove" | "return" | "draw" | "gold" | "ignore" | "later" | "or"
    target: Expr | None
    count: int = 1
    source: Expr | None = None
    modifiers: tuple[str, ...] = ()
    up_to: bool = False
    piece: str | None = None
    parts: tuple[Action, ...] = ()  # kind "or": the sub-actions to choose from
    then: Action | None = None  # what follows this action as part of the same use of the tile

    @property
    def adjacent_if_possible(self) -> bool:
        return "adjacent-if-possible" in self.modifiers


# ---- declarations ----------------------------------------------------------
@dataclass(frozen=True)
class Declaration(Node):
    """A top-level declaration; `override` replaces a parent rule set's one of the same name."""

    override: bool = field(default=False, compare=False, kw_only=True)
    family: str | None = field(default=None, compare=False, kw_only=True)  # "t = red": a member of a family


@dataclass(frozen=True)
class Terrain(Declaration):
    name: str
    title: str
    letter: str | None
    flags: frozenset[str] = frozenset()
    texts: tuple[str, ...] = ()
    color: str | None = None  # "#rrggbb", for front ends


@dataclass(frozen=True)
class Tile(Declaration):
    name: str
    title: str
    letter: str | None
    supply: int | None
    action: Action | None
    texts: tuple[str, ...] = ()
    lifecycle: str | None = None  # the lifecycle it follows (the only one declared, if not named)
    pool: str | None = None  # dealt from this pool at setup (then `copies`, not `letter`/`supply`)
    copies: int | None = None
    settings: tuple[Setting, ...] = ()  # lifecycle and card-zone settings of this tile only
    given: Expr | None = None  # no location hex: given from a stock of `supply` when this comes true
    gives: tuple[int, str] | None = None  # (count, piece kind) the taker gets with the tile
    grant: Grant | None = None  # a `grant` declaration: an action of the board, held by no one


@dataclass(frozen=True)
class Grant(Node):
    """Who may use an action the board grants, and how often a turn (None: everyone, once)."""

    to: Expr | None = None
    uses: Expr | None = None


@dataclass(frozen=True)
class Placement(Declaration):
    """`count` markers put at set-up on hexes of `on` (at random from the seed): each marked hex
    is of terrain `marker` too; on each section (`per: section`, only `sections` if named)."""

    name: str
    title: str
    marker: str | None = None
    count: int = 1
    on: Expr | None = None
    sections: tuple[str, ...] = ()
    settings: tuple[Setting, ...] = ()
    texts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Setting(Node):
    """`key: value when condition`: one line of a lifecycle or turn block."""

    key: str
    value: str
    when: Expr | None = None
    value_pos: Pos | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Lifecycle(Declaration):
    """How tiles that follow it are kept, used and lost (settings by key)."""

    name: str
    title: str
    settings: tuple[Setting, ...] = ()
    texts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Card(Declaration):
    """A scoring rule: a Kingdom Builder card (`card`) or one that always applies (`scoring`)."""

    name: str
    title: str
    score: Expr | None
    always: bool = False
    texts: tuple[str, ...] = ()
    triggers: tuple[tuple[str, Expr], ...] = ()  # (event, gold) paid during play
    deck: str | None = None  # None: a Kingdom Builder card; else the deck of cards it belongs to
    removes: tuple[str, ...] = ()  # at set-up, the cards of one of these terrains leave the terrain deck


@dataclass(frozen=True)
class GridCell(Node):
    letter: str


@dataclass(frozen=True)
class Section(Declaration):
    name: str
    title: str
    rows: tuple[tuple[GridCell, ...], ...]
    board: str | None = None
    texts: tuple[str, ...] = ()
    deals: str | None = None  # in play, the section deals one card of this deck


@dataclass(frozen=True)
class Define(Declaration):
    name: str
    expr: Expr


@dataclass(frozen=True)
class Turn(Declaration):
    mandatory: tuple[Action, ...]
    settings: tuple[Setting, ...] = ()
    instead: tuple[tuple[str, Pos], ...] = ()  # `mandatory: A or NAME`: grants usable instead of it


@dataclass(frozen=True)
class Piece(Declaration):
    """A kind of piece: its owner (a player or nobody), supply and how it counts."""

    name: str
    title: str
    supply: int | None = None
    settings: tuple[Setting, ...] = ()
    glyph: str | None = None  # a display hint for front ends
    texts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Pool(Declaration):
    """Tiles dealt face up at setup, one on each hex of terrain `on`."""

    name: str
    title: str
    on: str | None = None
    texts: tuple[str, ...] = ()
    lifecycle: str | None = None  # the lifecycle its tiles follow unless they name one


@dataclass(frozen=True)
class Removal(Declaration):
    """`remove card NAME`: a parent's card, section or tile is not part of this rule set."""

    kind: str
    name: str


@dataclass(frozen=True)
class TerrainCard(Declaration):
    """A terrain card of several choices (terrain, settlements; None: the mandatory action's count)."""

    name: str
    title: str
    choices: tuple[tuple[str, int | None], ...] = ()
    settings: tuple[Setting, ...] = ()
    texts: tuple[str, ...] = ()


@dataclass(frozen=True)
class ListDecl(Declaration):
    """`list NAME = a, b, c`: a named list of names that a family may range over."""

    name: str
    items: tuple[str, ...] = ()


@dataclass(frozen=True)
class Family(Declaration):
    """`family t in (a, b) { declarations }`: each declaration once per value, `t` replaced by it."""

    name: str  # the parameter
    values: tuple[str, ...] = ()  # written out
    ref: str | None = None  # or the name of a `list`
    decls: tuple[Declaration, ...] = ()


Decl = (
    Terrain
    | Tile
    | Card
    | Section
    | Define
    | Turn
    | Lifecycle
    | Piece
    | Pool
    | Removal
    | TerrainCard
    | ListDecl
    | Family
    | Placement
)
