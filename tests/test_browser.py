"""The web table in a real browser: Playwright driving Debian's Chromium (/usr/bin/chromium).

A person creates a game against two bots on the new-game page, plays whole turns by
clicking (the mandatory builds, a tile action), is refused an illegal click with the rule's
sentence, takes a build back, plays to the end and finds the engine's final scores on the
page. A second browser context sits at another seat and sees the first seat's moves pushed
live, never its card. On Crossroads, a person places a warrior and sails a ship with the parts
of a tile's choice, and sees the new pieces drawn. `.ci/run` installs Chromium; where it cannot,
these tests are skipped.
"""

from __future__ import annotations

import importlib.util
import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parent.parent
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install '.[test]')")
pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[web]')")
if not CHROMIUM.exists():
    pytest.skip(
        f"Chromium is not installed at {CHROMIUM} (.ci/run installs Debian's chromium package): browser tests skipped",
        allow_module_level=True,
    )

from webplay import end_turns, table_where  # noqa: E402

from kbdsl import resources  # noqa: E402
from kbdsl.game import Game, Setup, replay  # noqa: E402
from kbdsl.ruleset import load  # noqa: E402

_spec = importlib.util.spec_from_file_location("screenshots", ROOT / "tools" / "screenshots.py")
shots = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(shots)  # the server start, Chromium's flags and the new-game steps, shared
WAIT = 30_000  # ms for one push to arrive and be shown


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """`kbdsl serve --http` as a user starts it, on a free loopback port, with a data folder; every
    table of this module comes from one address, so it may hold more than the default 20."""
    data = tmp_path_factory.mktemp("web-data")
    proc, url = shots.start_server(data, 0.05, "--tables-per-client", "500")
    try:
        yield url, data
    finally:
        proc.terminate()
        proc.wait(30)


@pytest.fixture(scope="module")
def browser() -> Iterator[sync_api.Browser]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=shots.ARGS)
        yield b
        b.close()


def page_in(browser, errors: list[str]) -> sync_api.Page:
    """A page in its own browser context (its own cookies and storage: another person)."""
    page = browser.new_context(viewport={"width": 1400, "height": 950}).new_page()
    page.set_default_timeout(WAIT)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page


shown = shots.settled  # the push the page shows once drawn completely


def after(page, action) -> dict:
    """Do `action` (a click) and wait until the page shows the change it causes."""
    version = shown(page)["version"]
    action()
    page.wait_for_function(f"() => T.push && T.push.version > {version} && T.shown === T.push.version")
    return shown(page)


def my_turn(page) -> dict:
    page.wait_for_function("() => T.push && T.shown === T.push.version && (T.push.state.over || T.push.legal)")
    return shown(page)


def targets(page, cls: str = "target") -> list[str]:
    return page.eval_on_selector_all(f"#board polygon.hex.{cls}", "ns => ns.map(n => n.dataset.hex)")


def click_hex(page, name: str) -> None:
    page.click(f'#board polygon.hex[data-hex="{name}"]', force=True)


def board_of(url: str, table: str) -> dict:
    request = urllib.request.Request(
        url + "/api", json.dumps({"cmd": "board", "game": table}).encode(), {"Content-Type": "application/json"}
    )
    return json.load(urllib.request.urlopen(request))["result"]


def test_a_whole_game_against_two_bots_by_clicking(server, browser):
    url, data = server
    errors: list[str] = []
    page = page_in(browser, errors)
    link = shots.create(page, url, ["person", "bot:random", "bot:greedy"])[0]
    page.goto(link)
    push = my_turn(page)
    table = push["table"]
    graph = board_of(url, table)
    titles = {t.title for t in load("base").tiles.values()}
    near_location = {n for h in graph["hexes"] if h["location"] for n in h["neighbours"]}

    # An illegal click is refused in plain English next to the board, and changes nothing.
    wrong = next(h["id"] for h in graph["hexes"] if h["id"] not in targets(page) and h["location"] is None)
    click_hex(page, wrong)
    page.wait_for_function("() => document.getElementById('refusal').textContent.startsWith('Refused:')")
    refusal = page.text_content("#refusal")
    assert wrong in refusal and not re.search(r"\w\(|\[", refusal), refusal  # no rule-language code, no citation
    assert shown(page)["version"] == push["version"]

    # A build taken back: the settlement leaves the board and the log.
    first = targets(page)[0]
    push = after(page, lambda: click_hex(page, first))
    assert first in push["state"]["settlements"][0]
    assert page.locator(f'#board .piece[data-hex="{first}"][data-player="0"]').count() == 1
    push = after(page, lambda: page.click("#undo"))
    assert push["state"]["settlements"][0] == [] and push["state"]["log"] == []
    assert page.locator(f'#board .piece[data-hex="{first}"]').count() == 0

    used_tile, tips = None, []
    while not push["state"]["over"]:
        push = my_turn(page)
        if push["state"]["over"]:
            break
        tile = page.locator("#actions button.tile:not([aria-disabled])")
        if used_tile is None and push["state"]["built"] == 0 and tile.count():
            used_tile = tile.first.get_attribute("data-action")
            tile.first.click()
            sources = targets(page, "source")
            if sources:  # a tile that moves: the settlement, then where it goes
                click_hex(page, sources[0])
                page.wait_for_function("() => T.from !== null")
            push = after(page, lambda: click_hex(page, targets(page)[0]))
            assert push["state"]["log"][-1]["do"] == used_tile
            title = load("base").tiles[used_tile].title
            assert page.locator("#log li:not(.event)").last.text_content().startswith(f"P0 {title}: ")
            continue
        if push["state"]["mandatory_left"] > 0:
            options = targets(page)
            pick = next((h for h in options if h in near_location), options[0])
            push = after(page, lambda pick=pick: click_hex(page, pick))
            assert pick in push["state"]["settlements"][0]
            greyed = page.locator('#actions button.tile[aria-disabled="true"]')
            if greyed.count():  # a tile taken this turn: greyed, with its rule and the reason as tooltip
                tips.append(greyed.first.get_attribute("title"))
        else:
            push = after(page, lambda: page.click('#actions button[data-action="end"]'))
    assert used_tile is not None, "no tile became usable in a whole game"
    assert tips and all("\nNot now: " in tip for tip in tips)
    assert any("taken this turn" in tip and tip.split(":")[0] in titles for tip in tips), tips

    page.wait_for_selector("#final:not([hidden])")
    saved = json.loads((data / f"{table}.json").read_text())["save"]
    rules = load("base")
    final = replay(Game(rules, Setup.from_json(saved["setup"], rules)), saved["log"])
    assert final.over
    for p, sheet in enumerate(final.scores()):
        for key, gold in sheet.items():
            cell = page.locator(f'#final-scores tr[data-score="{key}"] td[data-seat="{p}"]')
            assert cell.text_content() == str(gold), (p, key)
    assert "final" in page.text_content("#score-title")

    # The replay steps through the game move by move.
    page.click("#show-replay")
    page.click("#replay-first")
    page.wait_for_function("() => T.replayShown === 0")
    assert page.locator("#replay-board .piece").count() == 0
    page.click("#replay-next")
    page.wait_for_function("() => T.replayShown === 1")
    assert page.locator("#replay-board .piece").count() == 1
    assert page.text_content("#replay-step") == f"move 1 of {len(saved['log'])}"
    assert errors == []


def test_another_seat_sees_moves_pushed_live_but_not_the_hand(server, browser):
    url, _ = server
    errors: list[str] = []
    first = page_in(browser, errors)
    links = shots.create(first, url, ["person", "person", "bot:random"])
    first.goto(links[0])
    second = page_in(browser, errors)
    second.goto(links[1])
    mine = my_turn(first)
    theirs = shown(second)
    card = mine["state"]["hand"][0]
    assert card is not None and theirs["state"]["hand"][0] is None and theirs["seat"] == 1
    assert second.locator('#players [data-seat="0"] .hand-cell').text_content() == "hidden"

    hexes = targets(first)
    version = theirs["version"]
    after(first, lambda: click_hex(first, hexes[0]))
    second.wait_for_function(f"() => T.shown > {version}")  # pushed: the second page did not reload
    assert second.locator(f'#board .piece[data-hex="{hexes[0]}"][data-player="0"]').count() == 1
    assert shown(second)["state"]["hand"][0] is None
    assert targets(second) == []  # not its turn: nothing to click
    click_hex(second, hexes[1])
    second.wait_for_function("() => document.getElementById('refusal').textContent.length > 0")
    assert second.text_content("#refusal") == "it is seat 0's turn, not seat 1's"

    forged = page_in(browser, errors)  # a link with a made-up token sits nowhere and says so
    forged.goto(links[1].split("#")[0] + "#seat=made-up")
    forged.wait_for_function("() => document.getElementById('status').textContent.includes('belongs to no seat')")
    assert errors == []


def protocol(url: str) -> Callable[[dict, str | None], dict]:
    """The protocol over the web server's HTTP endpoint, with a seat's token (None: public)."""

    def call(request: dict, tok: str | None) -> dict:
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {tok}"} if tok else {})}
        try:
            with urllib.request.urlopen(
                urllib.request.Request(url + "/api", json.dumps(request).encode(), headers)
            ) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:  # a refused move (409) is a protocol answer too
            return json.load(e)

    return call


def crossroads_table(url: str) -> tuple[str, list[str], list[str]]:
    request = urllib.request.Request(
        url + "/api/tables",
        json.dumps({"rules": "crossroads", "preset": "crossroads", "seats": [{"kind": "person"}] * 2}).encode(),
        {"Content-Type": "application/json"},
    )
    t = json.load(urllib.request.urlopen(request))
    links = [s["link"] for s in t["seats"]]
    return t["table"], [link.split("#seat=")[1] for link in links], links


def test_a_crossroads_tile_choice_is_played_by_clicking_and_its_pieces_are_drawn(server, browser):
    url, _ = server
    errors: list[str] = []
    call = protocol(url)
    (table, toks, links), legal = table_where(
        lambda: crossroads_table(url), call, "lighthouse", "lighthouse.place"
    )  # seat 0 holds a Lighthouse
    page = page_in(browser, errors)
    page.goto(url + links[0])
    my_turn(page)

    # The tile's choice is one button per part, named by the tile and the part.
    place = page.locator('#actions button[data-action="lighthouse.place"]')
    assert place.text_content() == "Lighthouse: place ship" and place.get_attribute("aria-disabled") is None
    assert page.locator('#actions button[data-action="lighthouse.return"]').get_attribute("aria-disabled") == "true"
    assert page.locator('#actions button[data-action="lighthouse"]').count() == 0
    place.click()
    wanted = sorted(m["to"] for m in legal if m["do"] == "lighthouse.place")
    page.wait_for_function("() => document.querySelectorAll('#board polygon.hex.target').length > 0")
    assert sorted(targets(page)) == wanted
    push = after(page, lambda: click_hex(page, wanted[0]))
    assert push["state"]["kinds"]["ship"][0] == [wanted[0]]
    ship = page.locator(f'#board .piece[data-hex="{wanted[0]}"][data-kind="ship"][data-player="0"]')
    assert ship.count() == 1 and ship.locator("title").text_content() == "Ship of player 0"
    assert page.locator("#log li").last.text_content().startswith(f"P0 Lighthouse: place ship: on {wanted[0]}")
    kinds = page.locator('#players [data-seat="0"] .kinds')
    left = {k: v[0] for k, v in push["state"]["kind_supply"].items()}  # pieces come with their tiles (issue 21)
    assert left["ship"] == 0  # each kind's glyph and how many are left:
    assert kinds.text_content() == f"w{left['warrior']} s0 v{left['wagon']} H{left['city-hall']}"
    title = f"Warrior {left['warrior']}, Ship 0, Wagon {left['wagon']}, City hall {left['city-hall']}"
    assert kinds.get_attribute("title") == title

    # Next turn the ship sails: its hex first, then a highlighted water hex, one step at a time.
    end_turns(call, table, toks, until_seat=0)  # the rest of this turn and seat 1's, through the API
    push = my_turn(page)
    sail = page.locator('#actions button[data-action="lighthouse.move"]')
    page.wait_for_function(
        "() => !document.querySelector('#actions button[data-action=\"lighthouse.move\"]')"
        ".hasAttribute('aria-disabled')"
    )
    sail.click()
    assert targets(page, "source") == [wanted[0]]
    click_hex(page, wanted[0])
    page.wait_for_function("() => T.from !== null")
    assert "Click where the ship on" in page.text_content("#hint")
    step = targets(page)[0]
    push = after(page, lambda: click_hex(page, step))
    assert push["state"]["kinds"]["ship"][0] == [step] and push["state"]["pending"]["tile"] == "lighthouse.move"
    assert page.locator(f'#board .piece[data-hex="{step}"][data-kind="ship"]').count() == 1
    assert page.locator(f'#board .piece[data-hex="{wanted[0]}"]').count() == 0
    assert errors == []


def test_a_tile_action_without_a_hex_is_played_by_its_button_and_its_next_step_is_chosen(server, browser):
    url, _ = server
    errors: list[str] = []
    call = protocol(url)
    (table, toks, links), _ = table_where(
        lambda: crossroads_table(url), call, "fort", "fort"
    )  # seat 0 holds a Fort: draw a card, then build on it
    page = page_in(browser, errors)
    page.goto(url + links[0])
    my_turn(page)
    fort = page.locator('#actions button[data-action="fort"]')
    assert fort.text_content() == "Fort"
    push = after(page, fort.click)  # no hex to choose: the button plays the draw
    drawn = push["state"]["drawn"]
    assert push["state"]["log"][-1] == {"do": "fort"} and drawn in {
        t["name"] for t in page.evaluate("T.rules.terrains")
    }
    assert page.text_content("#drawn") == f"Drawn by a tile this turn: {page.evaluate(f'title({drawn!r})')}"
    if push["state"]["pending"] is None:  # no free hex of the drawn terrain: Fort builds nothing
        assert page.evaluate("T.action") in ("build", None)
        return
    assert page.evaluate("T.action") == "fort.build"
    assert page.locator('#actions button[data-action="fort.build"]').text_content() == "Fort: build"
    hexes = targets(page)
    terrains = {h["id"]: h["terrain"] for h in board_of(url, table)["hexes"]}
    assert hexes and {terrains[h] for h in hexes} == {drawn}
    push = after(page, lambda: click_hex(page, hexes[0]))
    assert push["state"]["log"][-1] == {"do": "fort.build", "to": hexes[0]} and push["state"]["pending"] is None
    assert page.locator("#log li").last.text_content().startswith(f"P0 Fort: build: on {hexes[0]}")
    assert errors == []


# -- the table a player expects: fits every screen, explains its cards, ends in a dialog ----------------
SCREENS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def new_table(url: str, rules: str, seats: list[dict], **setup) -> dict:
    body = json.dumps({"rules": rules, "seats": seats, **setup}).encode()
    request = urllib.request.Request(url + "/api/tables", body, {"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request))


def sized_page(browser, errors: list[str], screen: str) -> sync_api.Page:
    phone = screen == "phone"
    context = browser.new_context(viewport=SCREENS[screen], has_touch=phone, is_mobile=phone)
    page = context.new_page()
    page.set_default_timeout(WAIT)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page


def in_view(page, selector: str) -> bool:
    """Whether the element lies wholly inside the viewport (nothing to scroll to see it)."""
    return page.eval_on_selector(
        selector,
        "n => { const r = n.getBoundingClientRect();"
        " return r.width > 0 && r.left >= 0 && r.top >= 0"
        " && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5; }",
    )


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("rules", resources.shipped())  # base, Nomads, Crossroads and every other shipped set
def test_the_table_fits_the_screen_with_the_whole_board_in_view(server, browser, rules, screen):
    url, _ = server
    errors: list[str] = []
    players = load(rules).players[1]  # the most seats: the widest players' panel
    t = new_table(url, rules, [{"kind": "person", "name": "Ann"}] + [{"kind": "bot", "bot": "random"}] * (players - 1))
    page = sized_page(browser, errors, screen)
    page.goto(url + t["seats"][0]["link"])
    my_turn(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREENS[screen]["width"]  # never sideways
    assert in_view(page, "#board svg")  # the whole drawing: the SVG scales it into this box
    assert in_view(page, "#actions") and in_view(page, "#turn")
    for tab in ("players", "cards", "log"):  # every panel reflows within the screen
        page.click(f"#tab-{tab}")
        assert page.evaluate("document.documentElement.scrollWidth") <= SCREENS[screen]["width"], tab
    widest = page.eval_on_selector_all("#side *", "ns => Math.max(...ns.map(n => n.getBoundingClientRect().right))")
    assert widest <= SCREENS[screen]["width"] + 0.5
    caption = (  # the smallest location caption as drawn, in pixels
        "(() => { const svg = document.querySelector('#board svg'),"
        " r = svg.getBoundingClientRect(), v = svg.viewBox.baseVal;"
        " const k = Math.min(r.width / v.width, r.height / v.height);"
        " return Math.min(...[...svg.querySelectorAll('text.name')]"
        ".map(n => parseFloat(getComputedStyle(n).fontSize) * k)); })()"
    )
    if screen == "desktop":  # location captions 10 px tall or more as drawn
        assert page.evaluate(caption) >= 10, page.evaluate(caption)
    else:  # the controls stay docked below the board; the board zooms inside its box, not the page
        assert page.eval_on_selector("#side", "n => getComputedStyle(n).position") == "fixed"
        box = page.locator("#board").bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.keyboard.down("Control")
        page.mouse.wheel(0, -400)
        page.keyboard.up("Control")
        page.wait_for_function("() => document.querySelector('#board svg').style.transform.includes('scale')")
        assert page.evaluate("document.documentElement.scrollWidth") <= SCREENS[screen]["width"]
        assert in_view(page, "#zoom-reset")
        assert page.evaluate(caption) >= 10  # zoomed in, the captions read at 10 px or more
    assert errors == []


def test_whose_turn_it_is_stands_at_the_top_in_the_seats_colour_and_in_the_title(server, browser):
    url, _ = server
    errors: list[str] = []
    t = new_table(url, "base", [{"kind": "person", "name": "Ann"}, {"kind": "person", "name": "Bo"}])
    page = sized_page(browser, errors, "desktop")
    page.goto(url + t["seats"][0]["link"])
    push = my_turn(page)
    from kbdsl.render.svg import PLAYER_COLORS

    rgb = "rgb({}, {}, {})".format(*(int(PLAYER_COLORS[0][i : i + 2], 16) for i in (1, 3, 5)))
    assert page.text_content("#turn") == "Your move, Ann (P0)"
    assert page.eval_on_selector("#turn", "n => getComputedStyle(n).backgroundColor") == rgb
    assert page.title().startswith("Your move")
    s = push["state"]
    assert f"deck {s['deck']}, discard {len(s['discard'])}" in page.text_content("#counts")
    assert "round 1" in page.text_content("#counts")
    assert page.locator(f'#players [data-seat="{s["start"]}"] .first').count() == 1
    other = sized_page(browser, errors, "desktop")
    other.goto(url + t["seats"][1]["link"])
    shown(other)
    assert other.text_content("#turn") == "Ann (P0) to move" and not other.title().startswith("Your move")
    assert errors == []


def test_each_card_and_task_shows_its_rule_and_every_seats_gold(server, browser):
    from kbdsl.english import English

    url, _ = server
    errors: list[str] = []
    t = new_table(url, "crossroads", [{"kind": "person"}, {"kind": "person"}], preset="crossroads")
    rules = load("crossroads")
    en = English(rules)
    page = sized_page(browser, errors, "desktop")
    page.goto(url + t["seats"][0]["link"])
    push = my_turn(page)
    page.click("#tab-cards")
    sheet = push["scores"]["scores"]
    keys = [k for k in sheet[0] if k != "total"]
    assert set(push["state"]["setup"]["cards"]) <= set(keys)
    for key in keys:
        decl = rules.cards.get(key) or rules.scorings[key]
        card = page.locator(f'#cards [data-card="{key}"]')
        assert card.locator("h3").text_content() == decl.title
        assert card.locator(".rule").text_content() == f"Each player scores {en.number(decl.score)}."
        gold = card.locator("li")
        assert [gold.nth(p).text_content() for p in range(len(sheet))] == [
            f"P{p}: {sc[key]}" for p, sc in enumerate(sheet)
        ]
    tips = page.eval_on_selector_all(
        "#board polygon.hex[data-tile]", "ns => ns.map(n => [n.dataset.tile, n.querySelector('title').textContent])"
    )
    assert tips
    for tile, tip in tips:
        decl = rules.tiles[tile]
        assert decl.title in tip and (decl.action is None or en.action(decl.action)[1:] in tip), tip
        assert " ".join(decl.texts) in tip
    assert errors == []


@pytest.mark.parametrize("screen", SCREENS)
def test_a_refusal_stands_in_view_in_plain_english_with_the_nearest_legal_hex(server, browser, screen):
    url, _ = server
    errors: list[str] = []
    t = new_table(url, "base", [{"kind": "person"}, {"kind": "bot", "bot": "random"}], preset="first-game")
    page = sized_page(browser, errors, screen)
    page.goto(url + t["seats"][0]["link"])
    push = my_turn(page)
    rules = load("base")
    graph = {h["id"]: h for h in board_of(url, t["table"])["hexes"]}
    card = push["state"]["hand"][0]
    wrong = next(h for h, x in graph.items() if x["terrain"] not in (card, None) and x["location"] is None)
    page.evaluate(f"clicked({wrong!r})")  # the click a person makes on that hex (on a phone it may be tiny)
    page.wait_for_function("() => document.getElementById('refusal').textContent.startsWith('Refused:')")
    text = page.text_content("#refusal")
    nearest = page.eval_on_selector("#board polygon.hex.nearest", "n => n.dataset.hex")
    assert nearest in targets(page)
    assert text == (
        f"Refused: Build on {rules.terrains[card].title} hexes, next to your settlements if possible:"
        f" {wrong} is {rules.terrains[graph[wrong]['terrain']].title}. Nearest you can: {nearest}."
    )
    assert in_view(page, "#refusal")
    build = page.get_attribute('#actions button[data-action="build"]', "title")
    assert build.startswith("Build: Build 3 settlements") and not re.search(r"\w\(", build), build
    assert errors == []


def test_a_bot_only_game_ends_in_a_dialog_with_winners_replay_and_a_rematch(server, browser):
    url, _ = server
    errors: list[str] = []
    t = new_table(url, "base", [{"kind": "bot", "bot": "random"}] * 3, preset="first-game")
    page = sized_page(browser, errors, "desktop")
    page.goto(url + t["spectator"])
    page.wait_for_selector('#final[role="dialog"]:not([hidden])', timeout=300_000)
    push = shown(page)
    assert in_view(page, "#final .dialog-body")
    winners = push["scores"]["winners"]
    best = push["scores"]["scores"][winners[0]]["total"]
    text = page.text_content("#winners")
    assert all(f"P{w}" in text for w in winners) and f"{best} gold" in text
    if len(winners) > 1:
        assert "tie" in page.text_content("#tiebreak")
    for p, sheet in enumerate(push["scores"]["scores"]):
        assert page.text_content(f'#final-scores tr[data-score="total"] td[data-seat="{p}"]') == str(sheet["total"])
    assert in_view(page, "#show-replay") and in_view(page, "#rematch")
    page.click("#show-replay")
    page.wait_for_function("() => T.replayShown >= 0")
    page.click("#close-final")
    assert page.locator("#final").is_hidden() and in_view(page, "#show-final")
    page.click("#show-final")
    with page.expect_navigation():
        page.click("#rematch")
    page.wait_for_function(f"() => T.push && T.table !== {t['table']!r}")
    again = shown(page)
    assert [s["bot"] for s in again["seats"]] == ["random"] * 3 and again["table"] != t["table"]
    assert errors == []


def test_the_lobby_lists_open_tables_to_join_under_a_name_or_watch(server, browser):
    url, _ = server
    errors: list[str] = []
    t = new_table(url, "base", [{"kind": "person", "name": "Ann"}, {"kind": "person", "open": True}])
    page = sized_page(browser, errors, "phone")
    page.goto(url + "/")
    row = page.locator(f'#tables li[data-table="{t["table"]}"]')
    assert "Ann" in row.text_content() and "free seat" in row.text_content()
    assert row.locator("a.watch").get_attribute("href") == t["spectator"]
    page.fill("#my-name", "Bo")
    row.locator("button.join").click()
    page.wait_for_function("() => typeof T !== 'undefined' && T.push && T.shown === T.push.version")
    assert page.text_content("#me-title") == "You: Bo (P1)"
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREENS["phone"]["width"]
    assert page.locator("#setup").count() == 0  # the table page; the lobby's form is one link away
    page.goto(url + "/")
    assert page.locator(f'#tables li[data-table="{t["table"]}"] button.join').count() == 0  # taken
    assert page.locator("#setup #create").is_visible()  # the new-game form stays on the lobby page
    assert errors == []


@pytest.mark.parametrize("where", ["lobby", "table"])
def test_no_critical_accessibility_violation(server, browser, where):
    from axe_playwright_python.sync_playwright import Axe

    url, _ = server
    errors: list[str] = []
    page = sized_page(browser, errors, "desktop")
    if where == "lobby":
        page.goto(url + "/")
        page.wait_for_selector("#seats li")
    else:
        t = new_table(url, "crossroads", [{"kind": "person"}, {"kind": "bot", "bot": "random"}])
        page.goto(url + t["seats"][0]["link"])
        my_turn(page)
    violations = Axe().run(page).response["violations"]
    critical = [
        (v["id"], v["help"], [n["target"] for n in v["nodes"]][:3]) for v in violations if v["impact"] == "critical"
    ]
    assert critical == []
    assert errors == []
