"""Tables: open games with seats for people and bots, and who may ask what.

A table is one game of the protocol's `Server` plus its seats. Every request from the web
goes through `Tables.request`, which checks the seat token, fills in the game and the seat
itself and hands the request to the same `Server.handle` that `kbdsl serve` uses: one
implementation of every method, two transports. Tokens come from `secrets` and are compared
in constant time; they appear in no view, push, error or log line. A request without a
token sees the public view and can play nothing. With a data folder, each table is written
atomically after every change (a change that cannot be saved is taken back), and a restart
loads every saved table back by replaying it. Finished and idle tables are closed (`expired`),
and one client may hold only so many (`Limits`), so nobody can fill the server for good.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kbdsl.engine.explain import refusal as why_refused
from kbdsl.errors import KbdslError
from kbdsl.game import State, replay
from kbdsl.moves import Move
from kbdsl.protocol import RequestError, Server, _error, bad, request_id
from kbdsl.render import svg
from kbdsl.web import store
from kbdsl.web.limits import Limits
from kbdsl.web.texts import refusal, texts

Json = dict[str, Any]
log = logging.getLogger("kbdsl.web")

MAX_SEATS = 8
#: Anyone may ask these; the result shows the view of the token's seat, else the public one.
PUBLIC = ("hello", "rules", "state", "scores", "board")
#: Only the seat to move: its legal moves depend on its hidden card.
TO_MOVE = ("legal", "targets", "actions")
#: Only the seat to move, with its token.
PLAYS = ("play", "undo")
#: Methods whose request names a seat for its view.
VIEWED = ("state", "play", "undo")
#: The rest (new, load, save, close, games, bot) stay with the server: saves hold the deck,
#: and bots move by the seats the table was created with.
SETUP_FIELDS = ("rules", "preset", "sections", "cards", "options")
SAVE_FORMAT = 1
#: What a person's seat may say beside its kind: a name, and whether anyone in the lobby may take it.
PERSON = ("name", "open")
NAME_LENGTH = 24
LOBBY = 100  # tables the lobby lists at most (the newest)


def forbidden(message: str) -> RequestError:
    return RequestError("forbidden", message)


def unsaved(what: str, e: OSError) -> RequestError:
    """The refusal of a change that could not be written to --data (it was taken back)."""
    why = e.strerror or str(e)
    return RequestError("unavailable", f"{what} could not be saved ({why}), so it was not made; try again later")


@dataclass
class Seat:
    """A place at a table: a person (who holds `token`) or a bot (named as `make_bot` knows it)."""

    kind: str
    bot: str | None = None
    token: str | None = field(default=None, repr=False)
    name: str | None = None  # what the person at the seat is called (shown to everyone)
    open: bool = False  # a person's seat anyone in the lobby may take (then it is no longer open)

    def public(self, seat: int) -> Json:
        return {"seat": seat, "kind": self.kind, "bot": self.bot, "name": self.name, "open": self.open}


@dataclass
class Table:
    id: str
    game: str  # the Server's id of the game
    seats: list[Seat]
    version: int = 0  # counts changes, so a client can drop a stale push
    last: list[Json] = field(default_factory=list)  # `played` of the last change
    spec: Json = field(default_factory=dict)  # the set-up it was created with (SETUP_FIELDS), for a rematch
    rematch: str | None = None  # the id of the table of the same seats that follows this one
    touched: float = 0.0  # when it last changed (the clock's seconds): idle tables close
    owner: str | None = None  # the client address that created it (not saved), for Limits.per_client
    picture: tuple[int, str] = (-1, "")  # the board's SVG now, and the version it shows


class Tables:
    """Every open table by id, over one protocol Server that loads only shipped rule sets."""

    def __init__(self, data: Path | None = None, limits: Limits | None = None, clock: Callable[[], float] = time.time):
        limits = limits or Limits()
        self.server = Server(allow_paths=False, max_games=limits.max_tables)
        self.data, self.limits, self.clock = data, limits, clock
        self.tables: dict[str, Table] = {}
        if data is not None:
            data.mkdir(parents=True, exist_ok=True)

    def _call(self, cmd: str, **request: Any) -> Json:
        """A request the tables build themselves: the Server's method, without re-validating it."""
        return self.server.methods[cmd]({"cmd": cmd, **request})

    # -- tables and seats ------------------------------------------------------------------
    def create(self, spec: Any, client: str | None = None) -> Json:
        """A new table from a set-up and a list of seats (made by `client`, an address); the answer holds
        every seat's link."""
        self._room(client)
        if not isinstance(spec, dict):
            raise bad('a table is a JSON object such as {"rules": "base", "seats": [...]}')
        unknown = sorted(set(spec) - {*SETUP_FIELDS, "seats"})
        if unknown:
            raise bad(f"unknown field {unknown[0]!r} (a table has {', '.join(SETUP_FIELDS)} and seats)")
        bots = self._call("hello")["bots"]
        seats = [_seat(s, i, bots) for i, s in enumerate(_seat_list(spec.get("seats")))]
        request: Json = {"cmd": "new", "players": len(seats)}  # no seed: the server draws one from secrets
        request.update((k, spec[k]) for k in SETUP_FIELDS if k in spec)
        response = self.server.handle(request)
        if not response["ok"]:
            e = response["error"]
            raise RequestError(e.pop("code"), e.pop("message"), **e)
        table = Table(
            _new_id(), response["result"]["game"], seats, spec=_spec(spec), touched=self.clock(), owner=client
        )
        try:
            self.persist(table)
        except OSError as e:
            del self.server.games[table.game]
            raise unsaved("the table", e) from None
        self.tables[table.id] = table
        links = [
            {**s.public(i), **({"link": f"/t/{table.id}#seat={s.token}"} if s.token else {})}
            for i, s in enumerate(seats)
        ]
        return {"table": table.id, "spectator": f"/t/{table.id}", "seats": links}

    def _room(self, client: str | None) -> None:
        """Refuse a new table when its client holds its share of tables, or the server is full."""
        mine = sum(t.owner == client for t in self.tables.values()) if client is not None else 0
        if mine >= self.limits.per_client:
            raise RequestError(
                "rate_limited",
                f"this client has {mine} open tables, the most one client may have; finished and idle ones close",
            )
        if len(self.tables) >= self.limits.max_tables:
            raise RequestError(
                "unavailable",
                f"the server has {len(self.tables)} open tables, the most it holds; finished and idle tables close "
                "by themselves: try again later",
            )

    def expired(self) -> list[Table]:
        """The tables due to close: finished ones `finished_timeout` after their last move, others `idle_timeout`."""
        now, limits = self.clock(), self.limits
        return [
            t
            for t in self.tables.values()
            if now - t.touched >= (limits.finished_timeout if self.server.games[t.game].over else limits.idle_timeout)
        ]

    def close(self, table: Table) -> None:
        """Forget a table: its game, its slot and its file in the data folder."""
        self.tables.pop(table.id, None)
        self.server.games.pop(table.game, None)
        if self.data is not None:
            try:
                (self.data / f"{table.id}.json").unlink(missing_ok=True)
            except OSError as e:
                log.warning("the save of a closed table could not be removed from %s: %s", self.data, e.strerror)

    def get(self, table_id: Any) -> Table:
        if not isinstance(table_id, str) or table_id not in self.tables:
            raise RequestError("unknown_game", "no open table with that id")
        return self.tables[table_id]

    def seat(self, table: Table, token: Any) -> int | None:
        """The seat a token belongs to; None without a token; refused for a token of no seat."""
        if token is None or token == "":
            return None
        if isinstance(token, str):
            for i, s in enumerate(table.seats):
                if s.token is not None and secrets.compare_digest(s.token.encode(), token.encode()):
                    return i
        raise forbidden("this seat token belongs to no seat of this table")

    def info(self, table: Table) -> Json:
        state = self.server.games[table.game]
        return {
            "table": table.id,
            "rules": state.game.rules.ref,
            "seats": [s.public(i) for i, s in enumerate(table.seats)],
            "version": table.version,
            "current": state.current,
            "over": state.over,
        }

    # -- the lobby and rematches -----------------------------------------------------------
    def lobby(self) -> Json:
        """The open tables, newest first: rule set, seats (open ones to take), whose turn; never a token."""
        listed = []
        for table in reversed(list(self.tables.values())):
            state = self.server.games[table.game]
            if state.over:
                continue
            rules = state.game.rules
            listed.append(
                {
                    "table": table.id,
                    "rules": rules.ref,
                    "title": rules.title or rules.name,
                    "seats": [s.public(i) for i, s in enumerate(table.seats)],
                    "open": sum(s.open for s in table.seats),
                    "turn": state.turn,
                    "watch": f"/t/{table.id}",
                }
            )
            if len(listed) == LOBBY:
                break
        return {"tables": listed}

    def claim(self, table: Table, spec: Any) -> Json:
        """Take an open seat of a table from the lobby, under a name: the seat's link (its token)."""
        if not isinstance(spec, dict) or set(spec) - {"name"}:
            raise bad('a seat is taken with {"name": NAME}')
        name = seat_name(spec.get("name"))
        if self.server.games[table.game].over:
            raise forbidden("the game at this table is over")
        free = next((i for i, s in enumerate(table.seats) if s.open), None)
        if free is None:
            raise forbidden("this table has no open seat left; watch it instead")
        seat = table.seats[free]
        seat.open, seat.name = False, name or seat.name
        self._changed(table, table.last)
        return {"table": table.id, "seat": free, "link": f"/t/{table.id}#seat={seat.token}"}

    def offer_rematch(self, table: Table, token: Any, client: str | None = None) -> Json:
        """A new table of the same set-up and seats (names, bots; new tokens) after a finished game,
        counted against `client`'s tables as any other it creates.

        Asked by a seat of the table (or anyone, at a table of bots only); asked again, the same one."""
        seat = self.seat(table, token)
        if seat is None and any(s.kind == "person" for s in table.seats):
            raise forbidden("a rematch is asked for by a seat of the table (its link)")
        if not self.server.games[table.game].over:
            raise forbidden("a rematch follows a finished game")
        if table.rematch not in self.tables:
            seats = [
                {"kind": "bot", "bot": s.bot} if s.kind == "bot" else {"kind": "person", "name": s.name}
                for s in table.seats
            ]
            table.rematch = self.create({**table.spec, "seats": seats}, client)["table"]
            self._changed(table, table.last)
        return {"table": table.rematch, **self.rematch_link(table, seat)}

    def rematch_link(self, table: Table, seat: int | None) -> Json:
        """Where a seat of a finished table plays its rematch (a spectator: watches it); {} if none."""
        after = self.tables.get(table.rematch or "")
        if after is None:
            return {}
        token = after.seats[seat].token if seat is not None and seat < len(after.seats) else None
        return {"link": f"/t/{after.id}" + (f"#seat={token}" if token else "")}

    # -- requests --------------------------------------------------------------------------
    def request(self, token: Any, req: Any) -> tuple[Json, bool]:
        """Answer one protocol request from the web (never raises); True if it changed the game."""
        try:
            inner, table = self._authorise(token, req)
        except RequestError as e:
            return _error(request_id(req), e), False
        before = self.server.games.get(table.game) if table is not None else None
        response = self.server.handle(inner)
        if table is None:
            return response, False
        if not response["ok"] and response["error"]["code"] == "illegal_move" and req["cmd"] == "play":
            self._explain(table, response["error"])
        if response["ok"] and "game" in response["result"]:
            response["result"]["game"] = table.id
        changed = response["ok"] and req["cmd"] in PLAYS
        if changed:
            try:
                self._changed(table, response["result"].get("played", []))
            except OSError as e:
                self.server.games[table.game] = before  # never acknowledge a move that is not on disk
                return _error(response["id"], unsaved("the move", e)), False
        return response, changed

    def _authorise(self, token: Any, req: Any) -> tuple[Json, Table | None]:
        """The request as the Server gets it (game and seat filled in), or why it is refused."""
        if not isinstance(req, dict):
            raise bad('a request is a JSON object such as {"cmd": "hello"}')
        cmd = req.get("cmd")
        if cmd not in (*PUBLIC, *TO_MOVE, *PLAYS):
            if cmd in self.server.methods:
                raise forbidden(f"{cmd!r} is not offered over the web (create tables with POST /api/tables)")
            return req, None  # the Server names the methods it knows
        if cmd == "hello" or (cmd == "rules" and "game" not in req):
            return req, None
        if "game" not in req:
            raise bad(f"{cmd}: 'game' is a required property (the table id)")
        table = self.get(req["game"])
        seat = self.seat(table, token)
        if "player" in req and req["player"] != seat:
            raise forbidden("a request may only ask for its own seat's view (the seat token says which)")
        state = self.server.games[table.game]
        if cmd in TO_MOVE or cmd in PLAYS:
            if seat is None:
                raise forbidden(f"{cmd!r} needs the token of the seat to move, and this request has none")
            if seat != state.current and not state.over:
                raise forbidden(f"it is seat {state.current}'s turn, not seat {seat}'s")
        inner = {k: v for k, v in req.items() if k != "player"}
        inner["game"] = table.game
        if cmd in VIEWED and seat is not None:
            inner["player"] = seat
        return inner, table

    def _explain(self, table: Table, error: Json) -> None:
        """Add to an illegal move's error the page's plain-English refusal (`texts.refusal`)."""
        state = self.server.games[table.game]
        try:
            move = Move.from_json(error["move"])
            error["explain"] = refusal(state.game.rules, why_refused(state, move))
        except (ValueError, KeyError, TypeError, KbdslError):  # a move naming no hex or action: the reason stands
            return

    def _changed(self, table: Table, played: list[Json]) -> None:
        """Count, stamp and save a change; OSError if it cannot be saved, the table's fields then as before
        (the caller puts the game back)."""
        old = table.version, table.last, table.touched
        table.version, table.last, table.touched = table.version + 1, played, self.clock()
        try:
            self.persist(table)
        except OSError:
            table.version, table.last, table.touched = old
            raise

    # -- bots ------------------------------------------------------------------------------
    def bot_due(self, table: Table) -> bool:
        state = self.server.games[table.game]
        return not state.over and table.seats[state.current].kind == "bot"

    def bot_plan(self, table: Table) -> Callable[[], tuple[Json, State]] | None:
        """The move of the bot to move as a function to run anywhere (a worker thread), or None if
        no bot is to move. It runs the protocol's `bot` on a private Server that holds only this
        game, so a slow bot touches nothing else; `bot_done` then puts the result in place."""
        if not self.bot_due(table):
            return None
        state = self.server.games[table.game]
        request = {"cmd": "bot", "game": table.game, "bot": table.seats[state.current].bot, "until": "move"}

        def think() -> tuple[Json, State]:
            private = Server(allow_paths=False)
            private.games[table.game] = state
            return private.handle(request), private.games[table.game]

        return think

    def bot_done(self, table: Table, outcome: tuple[Json, State]) -> None:
        """Put a bot's move in place; RequestError (the move taken back) if it cannot be saved."""
        response, after = outcome
        if not response["ok"]:
            raise RuntimeError(f"a bot could not move: {response['error']['message']}")
        before, self.server.games[table.game] = self.server.games[table.game], after
        try:
            self._changed(table, response["result"]["played"])
        except OSError as e:
            self.server.games[table.game] = before
            raise unsaved("the bot's move", e) from None

    # -- what a seat sees ------------------------------------------------------------------
    def push(self, table: Table, seat: int | None) -> Json:
        """Everything a seat's page shows after a change: its view, the scores, its moves if it is to move."""
        ask, gid = self._call, table.game
        view = ask("state", game=gid, **({"player": seat} if seat is not None else {}))["state"]
        scores = ask("scores", game=gid)
        del scores["game"]
        message = {
            "push": "update",
            "table": table.id,
            "version": table.version,
            "seat": seat,
            "seats": [s.public(i) for i, s in enumerate(table.seats)],
            "played": table.last,
            "state": view,
            "scores": scores,
            **({"rematch": self.rematch_link(table, seat)["link"]} if table.rematch in self.tables else {}),
        }
        if seat is not None and seat == view["current"] and not view["over"]:
            message["legal"] = ask("legal", game=gid)["moves"]
            actions = ask("actions", game=gid)
            message["actions"], message["undoable"] = actions["actions"], actions["undoable"]
        return message

    def _at(self, table: Table, step: int | None) -> tuple[State, int, list[Json]]:
        """The position after the first `step` moves (None: now), the step, and the whole log."""
        state = self.server.games[table.game]
        log = state.view(None)["log"]
        if step is None or step >= len(log):
            return state, len(log), log
        step = max(0, step)
        return replay(state.game, log[:step]), step, log

    def picture(self, table: Table, step: int | None = None, coords: bool = False) -> str:
        """The board as SVG (the drawing of `kbdsl render`), the moves of the last turn marked; the
        picture of now is drawn once per version (every page asks for it after every push)."""
        now = step is None and not coords
        if now and table.picture[0] == table.version:
            return table.picture[1]
        at, step_, log = self._at(table, step)
        text = svg.board(at, last=_last_turn(log[:step_]), coords=coords)
        if now:
            table.picture = (table.version, text)
        return text

    def texts(self, table: Table) -> Json:
        """The table's cards and tiles in plain English (`texts.texts`) and the board's colours
        (each seat's and each terrain's, as the SVG draws them), for the page to show."""
        rules = self.server.games[table.game].game.rules
        return {**texts(rules), "colours": {"seats": list(svg.PLAYER_COLORS), "terrains": svg.terrain_fills(rules)}}

    def replay(self, table: Table, step: int) -> Json:
        """The public view and scores after the first `step` moves of the game's log."""
        at, step, log = self._at(table, step)
        return {
            "table": table.id,
            "step": step,
            "steps": len(log),
            "move": log[step - 1] if step else None,
            "state": at.view(None),
            "scores": at.scores(),
        }

    def history(self, table: Table) -> Json:
        """Every move of the game so far with the seat that made it and what it changed (public events)."""
        state = self.server.games[table.game]
        at, played = state.game.new_state(), []
        for move in state.view(None)["log"]:
            player = at.current
            played.append({"player": player, "move": move, "events": at.play(move)})
        return {"table": table.id, "version": table.version, "played": played}

    # -- saves -----------------------------------------------------------------------------
    def persist(self, table: Table) -> None:
        """Write the table (seats with tokens, and the whole save) atomically and durably, readable by the
        owner only; OSError (logged) if it cannot be written."""
        if self.data is None:
            return
        save = self._call("save", game=table.game)["save"]
        doc = {
            "format": SAVE_FORMAT,
            "table": table.id,
            "version": table.version,
            "touched": table.touched,
            "seats": [asdict(s) for s in table.seats],
            "spec": table.spec,
            "rematch": table.rematch,
        }
        try:
            store.write_atomic(self.data / f"{table.id}.json", json.dumps({**doc, "save": save}))
        except OSError as e:
            log.warning("a table could not be saved in %s: %s", self.data, e.strerror or e)
            raise

    def restore(self) -> list[str]:
        """Open every table saved in the data folder by replaying it, after removing the temporary files
        a crash left; a file that does not restore is set aside, with one sentence saying why."""
        problems: list[str] = []
        if self.data is None:
            return problems
        for tmp in store.remove_temporaries(self.data):
            problems.append(f"{tmp.name}, a save a crash left half-written, was removed")
        for path in sorted(self.data.glob("*.json")):
            if len(self.tables) >= self.limits.max_tables:
                problems.append(f"{path.name} was not restored: the server holds {self.limits.max_tables} tables")
                continue
            try:
                table = self._restore(path)
            except Exception as e:  # noqa: BLE001  (whatever is wrong with one file, the others restore)
                aside = store.set_aside(path)
                where = f"set aside as {aside.name}" if aside else "left in place (it could not be renamed)"
                problems.append(f"{path.name} was not restored and is {where}: {e}")
                continue
            self.tables[table.id] = table
        return problems

    def _restore(self, path: Path) -> Table:
        """One saved table, checked (schemas/table.schema.json, then the save replayed); ValueError if bad."""
        doc = store.read_table(path)
        bots = self._call("hello")["bots"]
        unknown = [s["bot"] for s in doc["seats"] if s["kind"] == "bot" and s["bot"] not in bots]
        if unknown:
            raise ValueError(f"unknown bot {unknown[0]!r}")
        response = self.server.handle({"cmd": "load", "save": doc["save"]})
        if not response["ok"]:
            raise ValueError(response["error"]["message"])
        game = response["result"]["game"]
        players = self.server.games[game].players
        if players != len(doc["seats"]):
            del self.server.games[game]
            raise ValueError(f"it has {len(doc['seats'])} seats for a game of {players}")
        seats = [
            Seat(s["kind"], s.get("bot"), s.get("token"), seat_name(s.get("name")), s.get("open") is True)
            for s in doc["seats"]
        ]
        table = Table(path.stem, game, seats, doc["version"], touched=doc.get("touched", self.clock()))
        table.spec = _spec(doc.get("spec"))
        table.rematch = doc.get("rematch")
        return table


def _spec(spec: Any) -> Json:
    """A saved table's set-up for a rematch: only the fields a new table takes."""
    return {k: v for k, v in spec.items() if k in SETUP_FIELDS} if isinstance(spec, dict) else {}


def _last_turn(log: list[Json]) -> list[str]:
    """Hexes of the moves of the turn being played, or of the last finished turn if none yet."""
    moves = list(log)
    if moves and moves[-1]["do"] == "end":
        moves.pop()
    turn: list[Json] = []
    while moves and moves[-1]["do"] != "end":
        turn.append(moves.pop())
    return [h for m in turn for h in (m.get("from"), m.get("to")) if h]


def _seat_list(seats: Any) -> list[Any]:
    if not isinstance(seats, list) or not 1 <= len(seats) <= MAX_SEATS:
        raise bad(
            f'seats: a list of 1 to {MAX_SEATS} seats, each {{"kind": "person"}} or {{"kind": "bot", "bot": NAME}}'
        )
    return seats


def _seat(spec: Any, i: int, bots: list[str]) -> Seat:
    if not isinstance(spec, dict) or spec.get("kind") not in ("person", "bot") or set(spec) - {"kind", "bot", *PERSON}:
        raise bad(f'seats/{i}: a seat is {{"kind": "person"}} or {{"kind": "bot", "bot": NAME}}')
    if spec["kind"] == "person":
        if "bot" in spec:
            raise bad(f"seats/{i}: a person's seat names no bot")
        if not isinstance(spec.get("open", False), bool):
            raise bad(f"seats/{i}: open is true (anyone in the lobby may take the seat) or false")
        name = seat_name(spec.get("name"), f"seats/{i}")
        return Seat("person", token=secrets.token_urlsafe(24), name=name, open=spec.get("open", False))
    if set(spec) & set(PERSON):
        raise bad(f"seats/{i}: a bot's seat has no {' or '.join(PERSON)}")
    name = spec.get("bot", "random")
    if name not in bots:
        raise bad(f"seats/{i}: unknown bot {name!r} (one of {', '.join(bots)})")
    return Seat("bot", bot=name)


def seat_name(name: Any, where: str = "name") -> str | None:
    """A person's name as others see it: printable, at most NAME_LENGTH characters (None: unnamed)."""
    if name is None or name == "":
        return None
    if not isinstance(name, str) or len(name) > NAME_LENGTH or not name.isprintable() or not name.strip():
        raise bad(f"{where}: a name is 1 to {NAME_LENGTH} printable characters")
    return name.strip()


def _new_id() -> str:
    return secrets.token_urlsafe(12)
