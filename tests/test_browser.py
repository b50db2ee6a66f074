"""The web table in a real browser: Playwright driving Debian's Chromium (/usr/bin/chromium).

A person creates a game against two bots on the new-game page, plays whole turns by
clicking (the mandatory builds, a tile action), is refused an illegal click with the rule's
sentence, takes a build back, plays to the end and finds the engine's final scores on the
page. A second browser context sits at another seat and sees the first seat's moves pushed
live, never its card. On Crossroads, a person places a warrior and sails a ship with the parts
of a tile's choice, and sees the new pieces drawn. `.ci/run` installs Chromium; where it cannot, these tests are skipped.
"""

from __future__ import annotations

import importlib.util
import json
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

from kbdsl.game import Game, Setup, replay  # noqa: E402
from kbdsl.ruleset import load  # noqa: E402

_spec = importlib.util.spec_from_file_location("screenshots", ROOT / "tools" / "screenshots.py")
shots = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(shots)  # the server start, Chromium's flags and the new-game steps, shared
WAIT = 30_000  # ms for one push to arrive and be shown


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """`kbdsl serve --http` as a user starts it, on a free loopback port, with a data folder."""
    data = tmp_path_factory.mktemp("web-data")
    proc, url = shots.start_server(data)
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

    # An illegal click is refused with the engine's sentence, and changes nothing.
    wrong = next(h["id"] for h in graph["hexes"] if h["id"] not in targets(page) and h["location"] is None)
    click_hex(page, wrong)
    page.wait_for_function("() => document.getElementById('refusal').textContent.startsWith('Refused:')")
    refusal = page.text_content("#refusal")
    assert wrong in refusal and ("allows" in refusal or "[" in refusal), refusal
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
    assert second.locator('#players tr[data-seat="0"] .hand-cell').text_content() == "hidden"

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
            with urllib.request.urlopen(urllib.request.Request(url + "/api", json.dumps(request).encode(), headers)) as r:
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
    (table, toks, links), legal = table_where(lambda: crossroads_table(url), call, "lighthouse", "lighthouse.place")  # seat 0 holds a Lighthouse
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
    kinds = page.locator('#players tr[data-seat="0"] .kinds')
    left = {k: v[0] for k, v in push["state"]["kind_supply"].items()}  # pieces come with their tiles (issue 21)
    assert left["ship"] == 0  # each kind's glyph and how many are left:
    assert kinds.text_content() == f"w{left['warrior']} s0 v{left['wagon']} H{left['city-hall']}"
    title = f"Warrior {left['warrior']}, Ship 0, Wagon {left['wagon']}, City hall {left['city-hall']}"
    assert kinds.get_attribute("title") == title

    # Next turn the ship sails: its hex first, then a highlighted water hex, one step at a time.
    end_turns(call, table, toks, until_seat=0)  # the rest of this turn and seat 1's, through the API
    push = my_turn(page)
    sail = page.locator('#actions button[data-action="lighthouse.move"]')
    page.wait_for_function("() => !document.querySelector('#actions button[data-action=\"lighthouse.move\"]')"
                           ".hasAttribute('aria-disabled')")
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
    (table, toks, links), _ = table_where(lambda: crossroads_table(url), call, "fort", "fort")  # seat 0 holds a Fort: draw a card, then build on it
    page = page_in(browser, errors)
    page.goto(url + links[0])
    my_turn(page)
    fort = page.locator('#actions button[data-action="fort"]')
    assert fort.text_content() == "Fort"
    push = after(page, fort.click)  # no hex to choose: the button plays the draw
    drawn = push["state"]["drawn"]
    assert push["state"]["log"][-1] == {"do": "fort"} and drawn in {t["name"] for t in page.evaluate("T.rules.terrains")}
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
