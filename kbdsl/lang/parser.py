"""Parse rule-file text into `ast` declarations, turning every Lark error into a Diagnostic."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
from functools import lru_cache
from importlib.resources import files

from lark import Lark, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from kbdsl.errors import Diagnostic, Pos, RuleError
from kbdsl.lang import ast
from kbdsl.suggest import did_you_mean

MAX_SOURCE_BYTES = 1_000_000  # a rule file larger than this is refused, not parsed
MAX_NESTING = 64  # parentheses deeper than this are refused
MAX_NUMBER = 1_000_000  # the largest number a rule file may write (points, gold, payouts, counts)


@lru_cache(maxsize=1)
def _lark() -> Lark:
    grammar = files("kbdsl.lang").joinpath("grammar.lark").read_text(encoding="utf-8")
    options = {"parser": "lalr", "propagate_positions": True, "maybe_placeholders": False}
    cache = _cache_file()
    if cache is not None:
        with contextlib.suppress(OSError, EOFError, ValueError):  # a broken cache file: build afresh
            return Lark(grammar, cache=cache, **options)
    return Lark(grammar, **options)


def _cache_file() -> str | None:
    """Where Lark keeps the analysed grammar between runs (in the user's own cache folder, never a
    shared temporary one, since the file is unpickled). Lark checks it against the grammar's hash."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "kbdsl")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return None
    return os.path.join(folder, "grammar.lark-cache") if os.access(folder, os.W_OK) else None


_WORDS = {
    "NAME": "a name",
    "INT": "a number",
    "STRING": "a quoted string",
    "ROW": "a grid row ('|' and letters)",
    "$END": "end of file",
}
_LITERAL = re.compile(r"[A-Za-z0-9_-]+|[^A-Za-z0-9_\s]+")


def _describe(token_type: str) -> list[str]:
    """How people write a token: its literal text (each alternative of a keyword set), or a word."""
    if token_type in _WORDS:
        return [_WORDS[token_type]]
    pattern = _lark().get_terminal(token_type).pattern
    if pattern.type == "str":
        return [repr(pattern.value)]
    body = re.sub(r"\(\?!\[[^\]]*\]\)$", "", pattern.value)  # a keyword's word-boundary lookahead
    if body.startswith("(?:") and body.endswith(")"):
        body = body[3:-1]
    alternatives = [re.sub(r"\\(.)", r"\1", a) for a in body.split("|")]
    if all(_LITERAL.fullmatch(a) for a in alternatives):
        return [repr(a) for a in alternatives]
    return [token_type.lower()]


def _expected(types: list[str]) -> list[str]:
    """Every token the parser would have taken, in the language's words: keywords first."""
    words = {w for t in types for w in _describe(t)}
    return sorted(words, key=lambda w: (not w.startswith("'"), w))


#: Words that begin a declaration (a `{` after one opens its block).
_DECLARATIONS = frozenset(
    {"terrain", "tile", "card", "scoring", "section", "turn", "lifecycle", "piece", "pool", "define", "override"}
)
_WORD = re.compile(r'"[^"\n]*"|#.*|[{}:]|[A-Za-z][A-Za-z0-9_-]*|\|')


def _open_block(text: str, line: int, col: int) -> tuple[str, int, int] | None:
    """The innermost `{` still open before (line, col): the declaration it belongs to ("tile 'well'")
    and where that declaration begins. Strings, comments and grid rows are skipped."""
    stack: list[tuple[str, int, int]] = []
    decl: list[str] = []  # the declaration words seen since the last brace: keyword, name
    start = (0, 0)
    grid = False
    for n, body in enumerate(text.split("\n")[:line], 1):
        if grid and body.lstrip().startswith("|"):
            continue  # a grid row: its characters are hexes
        grid = False
        for m in _WORD.finditer(body if n < line else body[: col - 1]):
            word = m.group()
            if word == "{":
                what = f"{decl[0]} {decl[1]!r}" if len(decl) > 1 else (decl[0] if decl else "a block")
                stack.append((what, *start))
                decl = []
            elif word == "}":
                if stack:
                    stack.pop()
                decl = []
            elif word == ":" and m.start() >= 4 and body[: m.start()].rstrip().endswith("grid"):
                grid = True
                if body[m.end() :].lstrip().startswith("|"):
                    break  # the first row on the same line
            elif not stack and word in _DECLARATIONS and word != "override":
                decl, start = [word], (n, m.start() + 1)
            elif not stack and decl and len(decl) == 1 and word[0].isalpha():
                decl.append(word)
    return stack[-1] if stack else None


def _unclosed(path: str, err: UnexpectedInput, text: str) -> Diagnostic | None:
    """A missing `}`, said so: the parser met a new declaration (or the end of the file) where the
    open block could still close."""
    if not isinstance(err, (UnexpectedToken, UnexpectedEOF)):
        return None
    tok = getattr(err, "token", None)
    kind = getattr(tok, "type", "$END")
    if "RBRACE" not in (getattr(err, "accepts", None) or getattr(err, "expected", None) or ()):
        return None
    if kind != "$END" and str(tok) not in _DECLARATIONS | {"remove"}:
        return None
    line, col = (tok.line, tok.column) if kind != "$END" else (text.count("\n") + 1, len(text.rsplit("\n", 1)[-1]) + 1)
    found = _open_block(text, line, col)
    if found is None:
        return None
    what, at_line, at_col = found
    seen = "end of file" if kind == "$END" else repr(str(tok))
    msg = f"unexpected {seen}: {what} (begun at {at_line}:{at_col}) is not closed, a '}}' is missing before it"
    if kind == "$END":
        line, col = getattr(err, "line", line) or line, getattr(err, "column", col) or col
    return Diagnostic(Pos(path, line, col), msg, "E001")


def _syntax_error(path: str, err: UnexpectedInput, text: str = "") -> Diagnostic:
    unclosed = _unclosed(path, err, text)
    if unclosed is not None:
        return unclosed
    pos = Pos(path, getattr(err, "line", 0) or 0, getattr(err, "column", 0) or 0)
    # `accepts` (what the parser state really takes) is tighter than `expected` (what the lexer allowed)
    types = getattr(err, "accepts", None) or getattr(err, "expected", None) or getattr(err, "allowed", None) or []
    wanted = _expected(sorted(types))
    expected = f"; expected {_one_of(wanted)}" if wanted else ""
    end = None
    if isinstance(err, UnexpectedToken):
        tok = err.token
        if tok.type == "$END":
            msg = f"unexpected end of file{expected}"
        else:
            msg = f"unexpected {str(tok)!r}{expected}"
            keywords = [w[1:-1] for w in wanted if re.fullmatch(r"'[a-z][a-z-]*'", w)]
            msg += did_you_mean(str(tok), keywords)
            if tok.end_line == tok.line and tok.end_column:
                end = Pos(path, tok.line, tok.end_column)
    elif isinstance(err, UnexpectedCharacters):
        msg = f"unexpected character {err.char!r}{expected}"
    elif isinstance(err, UnexpectedEOF):
        msg = f"unexpected end of file{expected}"
    else:  # pragma: no cover - Lark has no other kinds today
        msg = "syntax error"
    return Diagnostic(pos, msg, "E001", end)


def _one_of(words: list[str]) -> str:
    return words[0] if len(words) == 1 else "one of " + ", ".join(words)


def _check_nesting(path: str, text: str) -> None:
    depth = 0
    line, col = 1, 0
    for ch in text:
        col += 1
        if ch == "\n":
            line, col = line + 1, 0
        elif ch == "(":
            depth += 1
            if depth > MAX_NESTING:
                raise RuleError(
                    [Diagnostic(Pos(path, line, col), f"parentheses nested deeper than {MAX_NESTING}", "E002")]
                )
        elif ch == ")":
            depth = max(depth - 1, 0)


def parse(text: str, path: str = "<text>") -> list[ast.Decl]:
    """Parse one rule file. Raises RuleError with file:line:col diagnostics on bad input."""
    return list(_parse(text, path))


@lru_cache(maxsize=256)
def _parse(text: str, path: str) -> tuple[ast.Decl, ...]:
    """Parsing is pure and the tree immutable, so a file read again (a parent rule set that
    several rule folders extend, as in `kbdsl lint rules/`) is parsed once."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES:
        raise RuleError([Diagnostic(Pos(path, 1, 1), f"file is larger than {MAX_SOURCE_BYTES} bytes", "E002")])
    if text.count("(") > MAX_NESTING:
        _check_nesting(path, text)
    try:
        tree = _lark().parse(text)
    except UnexpectedInput as err:
        raise RuleError([_syntax_error(path, err, text)]) from None
    except RecursionError:
        raise RuleError([Diagnostic(Pos(path, 1, 1), "expression nested too deeply", "E002")]) from None
    build = _Build(path)
    try:
        decls = tuple(build.transform(tree))
    except RecursionError:
        raise RuleError([Diagnostic(Pos(path, 1, 1), "expression nested too deeply", "E002")]) from None
    if build.errors:
        raise RuleError(build.errors)
    return decls


@v_args(meta=True)
class _Build(Transformer):
    """Lark tree -> ast nodes. Positions come from Lark's propagated metadata."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path
        self.errors: list[Diagnostic] = []

    def _int(self, tok) -> int:
        """A number token's value; one above MAX_NUMBER is an error at the token (and reads as the cap,
        never converting thousands of digits)."""
        text = str(tok)
        if len(text) > len(str(MAX_NUMBER)) or int(text) > MAX_NUMBER:
            end = Pos(self.path, tok.line, tok.column + len(text))
            self.errors.append(Diagnostic(self._pos(tok), f"numbers are at most {MAX_NUMBER}", "E105", end))
            return MAX_NUMBER
        return int(text)

    def _pos(self, meta_or_token) -> Pos:
        line = getattr(meta_or_token, "line", 0) or 0
        col = getattr(meta_or_token, "column", 0) or 0
        return Pos(self.path, line, col)

    # --- structure helpers
    def start(self, meta, items):
        return list(items)

    def title(self, meta, items):
        return ("title", items[0][1:-1])

    def letter(self, meta, items):
        return ("letter", str(items[0]), self._pos(items[0]))

    def color(self, meta, items):
        return ("color", str(items[0])[1:-1], self._pos(items[0]))

    def flag(self, meta, items):
        return ("flag", str(items[0]))

    def text(self, meta, items):
        return ("text", str(items[1])[1:-1])

    def supply(self, meta, items):
        return ("supply", self._int(items[0]))

    def lifecycle_ref(self, meta, items):
        return ("lifecycle", str(items[0]))

    def pool_ref(self, meta, items):
        return ("pool", str(items[0]))

    def copies(self, meta, items):
        return ("copies", self._int(items[0]))

    def glyph(self, meta, items):
        return ("glyph", str(items[0])[1:-1])

    def hand(self, meta, items):  # a setting whose value is a number
        when = items[1] if len(items) > 1 else None
        node = ast.Setting("hand", str(self._int(items[0])), when, value_pos=self._pos(items[0]), pos=self._pos(meta))
        return ("setting", node)

    def deck(self, meta, items):
        return ("deck", str(items[0]))

    def deals(self, meta, items):
        return ("deals", str(items[0]))

    def pool_on(self, meta, items):
        return ("on", str(items[0]))

    def trigger(self, meta, items):
        return ("trigger", (str(items[0]), items[1]))

    def event(self, meta, items):
        return str(items[0])

    def removed_kind(self, meta, items):
        return str(items[0])

    def setting(self, meta, items):
        when = items[2] if len(items) > 2 else None
        node = ast.Setting(str(items[0]), str(items[1]), when, value_pos=self._pos(items[1]), pos=self._pos(items[0]))
        return ("setting", node)

    def action_prop(self, meta, items):
        return ("action", items[0])

    def score(self, meta, items):
        return ("score", items[0])

    def board(self, meta, items):
        return ("board", str(items[0]))

    def grid(self, meta, items):
        rows = []
        for tok in items:
            body = str(tok)[1:]
            cells = []
            col = tok.column + 1
            for i, ch in enumerate(body):
                if not ch.isspace():
                    cells.append(ast.GridCell(ch, pos=Pos(self.path, tok.line, col + i)))
            rows.append(tuple(cells))
        return ("grid", tuple(rows), self._pos(meta))

    def _props(self, items):
        name_tok = items[0]
        props: dict[str, list] = {}
        for item in items[1:]:
            props.setdefault(item[0], []).append(item[1:])
        title = props.get("title", [[str(name_tok)]])[0][0]
        texts = tuple(t[0] for t in props.get("text", []))
        return str(name_tok), title, props, texts

    def _one(self, props, key, default=None):
        vals = props.get(key)
        return vals[-1][0] if vals else default

    # --- declarations
    def terrain(self, meta, items):
        name, title, props, texts = self._props(items)
        return ast.Terrain(
            name,
            title,
            self._one(props, "letter"),
            frozenset(f[0] for f in props.get("flag", [])),
            texts,
            self._one(props, "color"),
            pos=self._pos(items[0]),
        )

    def tile(self, meta, items):
        name, title, props, texts = self._props(items)
        return ast.Tile(
            name,
            title,
            self._one(props, "letter"),
            self._one(props, "supply"),
            self._one(props, "action"),
            texts,
            self._one(props, "lifecycle"),
            self._one(props, "pool"),
            self._one(props, "copies"),
            tuple(s[0] for s in props.get("setting", [])),
            self._one(props, "given"),
            self._one(props, "gives"),
            pos=self._pos(items[0]),
        )

    def given(self, meta, items):
        return ("given", items[0])

    def removes(self, meta, items):
        return ("removes", tuple(str(i) for i in items))

    def choice_item(self, meta, items):
        count = int(items[0]) if len(items) > 1 else None
        return (str(items[-1]), count)

    def choices(self, meta, items):
        return ("choices", tuple(items))

    def terrain_card(self, meta, items):
        name, title, props, texts = self._props(items)
        settings = tuple(s[0] for s in props.get("setting", []))
        return ast.TerrainCard(name, title, self._one(props, "choices", ()), settings, texts, pos=self._pos(items[0]))

    def list_decl(self, meta, items):
        return ast.ListDecl(str(items[0]), tuple(str(i) for i in items[1:]), pos=self._pos(items[0]))

    def family_list(self, meta, items):
        return ("values", tuple(str(i) for i in items))

    def family_ref(self, meta, items):
        return ("ref", str(items[0]))

    def family(self, meta, items):
        kind, what = items[1]
        values, ref = (what, None) if kind == "values" else ((), what)
        return ast.Family(str(items[0]), values, ref, tuple(items[2:]), pos=self._pos(items[0]))

    def gives(self, meta, items):
        return ("gives", (int(items[0]), str(items[1])))

    def grant_to(self, meta, items):
        return ("to", items[0])

    def grant_uses(self, meta, items):
        return ("uses", items[0])

    def grant(self, meta, items):
        """A `grant` is a tile held by no one (kbdsl.engine.grants): no letter, no supply."""
        name, title, props, texts = self._props(items)
        rule = ast.Grant(self._one(props, "to"), self._one(props, "uses"), pos=self._pos(items[0]))
        settings = tuple(s[0] for s in props.get("setting", []))
        action = self._one(props, "action")
        return ast.Tile(name, title, None, None, action, texts, settings=settings, grant=rule, pos=self._pos(items[0]))

    def placement_put(self, meta, items):
        count = int(items[0]) if len(items) == 3 else 1
        return ("put", (count, str(items[-2]), items[-1]))

    def placement_in(self, meta, items):
        return ("sections", tuple(str(x) for x in items))

    def placement(self, meta, items):
        name, title, props, texts = self._props(items)
        count, marker, on = self._one(props, "put", (1, None, None))
        settings = tuple(s[0] for s in props.get("setting", []))
        sections = self._one(props, "sections", ())
        return ast.Placement(name, title, marker, count, on, sections, settings, texts, pos=self._pos(items[0]))

    def piece(self, meta, items):
        name, title, props, texts = self._props(items)
        settings = tuple(s[0] for s in props.get("setting", []))
        return ast.Piece(
            name, title, self._one(props, "supply"), settings, self._one(props, "glyph"), texts, pos=self._pos(items[0])
        )

    def pool(self, meta, items):
        name, title, props, texts = self._props(items)
        return ast.Pool(
            name, title, self._one(props, "on"), texts, self._one(props, "lifecycle"), pos=self._pos(items[0])
        )

    def removal(self, meta, items):
        return ast.Removal(str(items[0]), str(items[1]), pos=self._pos(items[1]))

    def lifecycle(self, meta, items):
        name, title, props, texts = self._props(items)
        settings = tuple(s[0] for s in props.get("setting", []))
        return ast.Lifecycle(name, title, settings, texts, pos=self._pos(items[0]))

    def card(self, meta, items, always=False):
        name, title, props, texts = self._props(items)
        triggers = tuple(t[0] for t in props.get("trigger", []))
        deck, removes = self._one(props, "deck"), self._one(props, "removes", ())
        return ast.Card(
            name, title, self._one(props, "score"), always, texts, triggers, deck, removes, pos=self._pos(items[0])
        )

    def scoring(self, meta, items):
        return self.card(meta, items, always=True)

    def section(self, meta, items):
        name, title, props, texts = self._props(items)
        rows = self._one(props, "grid", ())
        board, deals = self._one(props, "board"), self._one(props, "deals")
        return ast.Section(name, title, rows, board, texts, deals, pos=self._pos(items[0]))

    def override(self, meta, items):
        return dataclasses.replace(items[0], override=True)

    def define(self, meta, items):
        return ast.Define(str(items[0]), items[1], pos=self._pos(items[0]))

    def turn(self, meta, items):
        settings = tuple(i[1] for i in items if isinstance(i, tuple) and i[0] == "setting")
        mandatory = [i for i in items if not isinstance(i, tuple) or i[0] == "instead"]
        actions = tuple(i[1] if isinstance(i, tuple) else i for i in mandatory)
        instead = tuple(n for i in mandatory if isinstance(i, tuple) for n in i[2])
        return ast.Turn(actions, settings, instead, pos=self._pos(meta))

    def mandatory(self, meta, items):
        if len(items) == 1:
            return items[0]
        return ("instead", items[0], tuple((str(n), self._pos(n)) for n in items[1:]))

    # --- actions
    def action(self, meta, items):
        return items[0]

    def choice(self, meta, items):
        return ast.Action("or", None, parts=tuple(items), pos=self._pos(meta))

    def sequence(self, meta, items):
        out = items[-1]
        for a in reversed(items[:-1]):
            out = dataclasses.replace(a, then=out)
        return out

    def piece_kind(self, meta, items):
        return ("kind", str(items[0]))

    def return_action(self, meta, items):
        exprs = [i for i in items[1:] if not isinstance(i, str)]
        mods = tuple(i for i in items[1:] if isinstance(i, str))
        source = exprs[0] if exprs else None
        return ast.Action("return", None, source=source, modifiers=mods, piece=str(items[0]), pos=self._pos(meta))

    def draw(self, meta, items):
        return ast.Action("draw", None, pos=self._pos(meta))

    def modifier(self, meta, items):
        return str(items[0])

    def exactly(self, meta, items):
        return ("amount", self._int(items[0]), False)

    def up_to(self, meta, items):
        return ("amount", self._int(items[0]), True)

    @staticmethod
    def _amount(items) -> tuple[int, bool, list]:
        if items and isinstance(items[0], tuple) and items[0][0] == "amount":
            return items[0][1], items[0][2], list(items[1:])
        return 1, False, list(items)

    def build(self, meta, items):
        count, up_to, items = self._amount(items)
        mods = tuple(items[1:])
        return ast.Action("build", items[0], count=count, modifiers=mods, up_to=up_to, pos=self._pos(meta))

    def place(self, meta, items):
        count, up_to, items = self._amount(items)
        piece, target, mods = str(items[0]), items[1], tuple(items[2:])
        return ast.Action("place", target, count=count, modifiers=mods, up_to=up_to, piece=piece, pos=self._pos(meta))

    def move(self, meta, items):
        count, up_to, items = self._amount(items)
        kind = next((i[1] for i in items if isinstance(i, tuple) and i[0] == "kind"), None)
        items = [i for i in items if not (isinstance(i, tuple) and i[0] == "kind")]
        exprs = [i for i in items if not isinstance(i, str)]
        mods = tuple(i for i in items if isinstance(i, str))
        source = exprs[0] if len(exprs) == 2 else None
        return ast.Action(
            "move", exprs[-1], count=count, source=source, modifiers=mods, up_to=up_to, piece=kind, pos=self._pos(meta)
        )

    def remove_action(self, meta, items):
        return ast.Action("remove", items[0], modifiers=tuple(items[1:]), pos=self._pos(meta))

    def gold(self, meta, items):
        return ast.Action("gold", None, count=self._int(items[0]), pos=self._pos(meta))

    def ignore(self, meta, items):
        return ast.Action("ignore", None, modifiers=(str(items[0]),), pos=self._pos(meta))

    def later_extra(self, meta, items):
        return ast.Action("later", None, count=int(items[0]), pos=self._pos(meta))

    def later_ignore(self, meta, items):
        return ast.Action("later", None, count=0, modifiers=(str(items[0]),), pos=self._pos(meta))

    # --- expressions
    def or_(self, meta, items):
        return ast.BoolOp("|", items[0], items[1], pos=self._pos(meta))

    def and_(self, meta, items):
        return ast.BoolOp("&", items[0], items[1], pos=self._pos(meta))

    def not_(self, meta, items):
        return ast.Not(items[0], pos=self._pos(meta))

    def compare(self, meta, items):
        return ast.Compare(str(items[1]), items[0], items[2], pos=self._pos(items[1]))

    def binop(self, meta, items):
        return ast.BinOp(str(items[1]), items[0], items[2], pos=self._pos(items[1]))

    def number(self, meta, items):
        return ast.Num(self._int(items[0]), pos=self._pos(items[0]))

    def ref(self, meta, items):
        return ast.Ref(str(items[0]), pos=self._pos(items[0]))

    def args(self, meta, items):
        return tuple(items)

    def call(self, meta, items):
        return ast.Call(str(items[0]), items[1], pos=self._pos(items[0]))

    def payouts(self, meta, items):
        return tuple(self._int(i) for i in items)

    def per(self, meta, items):
        where = items[2] if len(items) > 2 else None
        return ast.Per(
            self._int(items[0]), str(items[1]), where, domain_pos=self._pos(items[1]), pos=self._pos(items[0])
        )

    def aggregate(self, meta, items):
        fn, expr, domain = str(items[0]), items[1], items[2]
        where, payouts = None, ()
        for extra in items[3:]:
            if isinstance(extra, tuple) and all(isinstance(x, int) for x in extra):
                payouts = extra
            else:
                where = extra
        return ast.Aggregate(
            fn, expr, str(domain), where, payouts, domain_pos=self._pos(domain), pos=self._pos(items[0])
        )


def walk(node: object):
    """Yield every expression/action node below `node` (itself included)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        yield n
        if isinstance(n, ast.Call):
            stack.extend(n.args)
        elif isinstance(n, ast.Aggregate):
            stack.extend([n.expr, n.where])
        elif isinstance(n, ast.Per):
            stack.append(n.where)
        elif isinstance(n, ast.Not):
            stack.append(n.operand)
        elif isinstance(n, (ast.BoolOp, ast.Compare, ast.BinOp)):
            stack.extend([n.left, n.right])
        elif isinstance(n, ast.Action):
            stack.extend([n.target, n.source, n.then, *n.parts])
        elif isinstance(n, ast.Setting):
            stack.append(n.when)


__all__ = ["parse", "walk", "Tree"]
