"""The web table in a real browser: Playwright driving Debian's Chromium (/usr/bin/chromium).

A person creates a game against two bots on the new-game page, plays whole turns by
clicking (the mandatory builds, a tile action), is refused an illegal click with the rule's
sentence, takes a build back, plays to the end and finds the engine's final scores on the
page. A second browser context sits at another seat and sees the first seat's moves pushed
live, never its card. `.ci/run` installs Chromium; where it cannot, these tests are skipped.
"""

from __future__ import annotations

import importlib.util
import json
import urllib.request
from collections.abc import Iterator
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

    used_tile = None
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
        else:
            push = after(page, lambda: page.click('#actions button[data-action="end"]'))
    assert used_tile is not None, "no tile became usable in a whole game"

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
    assert errors == []
