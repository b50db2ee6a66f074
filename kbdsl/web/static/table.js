// The table page: the board (the server's SVG drawing), the seat's actions and card, scores, log, replay.
// The server decides everything; this page shows what a push says and sends clicks as protocol requests.
"use strict";

const T = {
  table: decodeURIComponent(location.pathname.split("/")[2] || ""),
  seat: null,       // this page's seat (null: a spectator)
  rules: null,      // the rule set's description (protocol `rules`)
  push: null,       // the last push: view, scores, and for the seat to move its legal moves and actions
  action: null,     // the selected action: "build", a tile's name, or `tile.verb` for a part of a tile's choice
  from: null,       // for a tile that moves: the chosen piece
  replayStep: 0,
  replayShown: -1,  // the step the replay board shows
  shown: -1,        // the version of the last push shown completely
  refused: null,    // why the server refused this page's seat (a bad link), if it did
  history: null,    // every move so far: {player, move, events}
  historyVersion: -1,
  socket: null,
  texts: null,      // the cards and tiles in plain English, and the colours (GET .../texts)
  wasMyMove: false, // for the title and the sound: whether the last push shown was this seat's move
  finalClosed: false,
};
const $ = id => document.getElementById(id);
kb.token = new URLSearchParams(location.hash.slice(1)).get("seat");

// -- names ---------------------------------------------------------------------------------
const seatName = p => { // the seat's person's name if they gave one, else P0, P1, ...
  const seat = T.push && T.push.seats[p];
  return seat && seat.name ? `${seat.name} (P${p})` : "P" + p;
};
const plain = reason => String(reason || "").replace(/\s*\[[^\[\]]*\]$/, ""); // without the rule it cites
function tileText(tile) { // a tile's sentences for tooltips: the author's text and the engine's reading
  const t = T.texts && T.texts.tiles[tile];
  return t ? [t.title + (t.text ? ": " + t.text : ""), t.rule].filter(Boolean).join("\n") : title(tile);
}
function title(name) {
  const r = T.rules;
  if (name === "build") return r.mandatory ? "Build" : "build";
  if (name === "end") return "End turn";
  const p = part(name);
  if (p && p.part.name !== p.tile.name) { // a part of a tile's choice, or what follows `then`: "<tile>: move <piece>"
    return `${p.tile.title}: ${p.part.kind}${p.part.piece ? " " + pieceTitle(p.part.piece).toLowerCase() : ""}`;
  }
  return kb.titles(r.tiles)[name] || kb.titles(r.cards)[name] || kb.titles(r.scorings)[name] || kb.titles(r.terrains)[name] || pieceTitle(name);
}
function pieceTitle(kind) {
  const k = (T.rules.pieces || []).find(x => x.name === kind);
  return k ? k.title : kind;
}
function pieceGlyph(kind) { // the rule set's display hint, as the board draws it, else the title
  const k = (T.rules.pieces || []).find(x => x.name === kind);
  return k && k.glyph ? k.glyph : pieceTitle(kind) + " ";
}
function part(action) { // the tile an action belongs to and its description (protocol `rules`: tiles[].parts)
  for (const tile of T.rules.tiles) {
    const p = (tile.parts || []).find(x => x.name === action);
    if (p) return {tile, part: p};
  }
  return null;
}
function pieceAt(hex) { // the kind of the piece on a hex, by the view's list of pieces
  const p = (T.push.state.pieces || []).find(x => x.hex === hex);
  return p ? pieceTitle(p.kind).toLowerCase() : "piece";
}
function at(hex) { // a hex and its terrain, as the board drawing names it
  const cell = document.querySelector(`#board polygon.hex[data-hex="${hex}"]`);
  const terrain = cell && cell.dataset.terrain;
  return terrain ? `${hex} (${title(terrain)})` : hex;
}
function moveText(m) {
  if (m.do === "end") return "ends the turn";
  if (m.do === "build") return `builds on ${at(m.to)}`;
  const how = m.from ? `${m.from} to ${at(m.to)}` : `on ${at(m.to)}`;
  return `${title(m.do)}: ${how}` + (m.discard ? ` (loses a ${m.discard} tile)` : "");
}
function eventText(e) {
  switch (e.event) {
    case "tile_gained": return `${seatName(e.player)} takes a ${title(e.tile)} tile (${e.at})`;
    case "tile_lost": return `${seatName(e.player)} loses a ${title(e.tile)} tile (${e.at})`;
    case "end_triggered": return `${seatName(e.player)} has built every settlement: the round is the last`;
    case "deck_reshuffled": return "the deck is reshuffled";
    case "card_removed": return `a ${title(e.card)} card leaves the game`;
    case "game_over": return `the game is over: ${e.winners.map(seatName).join(", ")} won`;
    default: return null;
  }
}

// -- the connection ----------------------------------------------------------------------------
function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = T.socket = new WebSocket(`${scheme}//${location.host}/ws/${encodeURIComponent(T.table)}`);
  ws.onopen = () => { ws.send(JSON.stringify({join: kb.token || null})); $("connection").textContent = "live"; };
  let joined = false;
  ws.onmessage = event => {
    const message = JSON.parse(event.data);
    if (message.push === "update") { joined = true; show(message); }
    else if (message.ok === false && !joined) { T.refused = message.error.message; $("status").textContent = message.error.message; }
    else if (message.ok === false) refuse(message.error);
  };
  ws.onclose = () => {
    if (T.refused) { $("connection").textContent = "not connected"; return; } // a bad link: retrying cannot help
    $("connection").textContent = "reconnecting...";
    setTimeout(connect, 1000); // a page that lost its socket catches up from the next push
  };
}

async function ask(request) {
  const reply = await kb.ask({...request, game: T.table});
  if (!reply.ok) refuse(reply.error);
  else clearRefusal();
  return reply;
}

function refuse(error) {
  const box = $("refusal");
  document.querySelectorAll("#board .nearest, #board .refused").forEach(n => n.classList.remove("nearest", "refused"));
  if (error.explain) {
    box.textContent = `Refused: ${error.explain.text}`;
    const mark = (hex, cls) => hex && document.querySelectorAll(`#board polygon.hex[data-hex="${hex}"]`).forEach(n => n.classList.add(cls));
    mark(error.explain.hex, "refused");
    mark(error.explain.nearest, "nearest");
  } else box.textContent = error.code === "illegal_move" ? `Refused: ${plain(error.reason)}.` : plain(error.message);
  box.classList.toggle("shown", Boolean(box.textContent));
}
function clearRefusal() { $("refusal").textContent = ""; $("refusal").classList.remove("shown"); }

// -- showing a push ------------------------------------------------------------------------------
async function show(push) {
  if (T.push && push.version < T.push.version) return;
  T.push = push;
  T.seat = push.seat;
  const s = push.state;
  const usable = new Set((push.actions || []).filter(a => a.usable).map(a => a.action));
  const pending = s.pending && s.pending.tile; // a tile action of several steps goes on: its next step is chosen
  if (!usable.has(T.action) || noHex(T.action)) {
    T.action = usable.has(pending) && !noHex(pending) ? pending : usable.has("build") ? "build" : null;
    T.from = null;
  }
  if (T.action && !targetsOf(T.action).length && !sourcesOf(T.action).length) T.action = null;
  const fresh = T.shown >= 0 && push.version > T.shown; // a change while watching: its moves are animated
  await Promise.all([drawBoard(boardUrl(`v=${push.version}`), $("board"), push.version), syncHistory(push)]);
  if (push !== T.push) return; // a newer push arrived meanwhile and is shown instead
  zoomApply();
  captions();
  animate(fresh ? push.played : null);
  highlight();
  status();
  hand();
  actions();
  players();
  cards();
  scoreTable($("scores"), push.scores.scores);
  log();
  if (s.over) finished();
  T.shown = push.version; // for tests and tools: the page shows this version completely
}

const boardUrl = query => `/api/tables/${encodeURIComponent(T.table)}/board.svg?${query}${$("coords").checked ? "&coords=1" : ""}`;
const colour = p => (T.texts && T.texts.colours.seats[p % T.texts.colours.seats.length]) || "#000";

// Whose turn it is, at the top in the seat's colour; the tab's title and an optional sound tell a
// person in another tab that it is their move.
function status() {
  const s = T.push.state;
  const mine = !s.over && s.current === T.seat;
  const banner = $("turn");
  if (s.over) {
    banner.textContent = "The game is over";
    banner.style.background = "";
  } else {
    banner.textContent = mine ? `Your move, ${seatName(T.seat)}` : `${seatName(s.current)} to move`;
    banner.style.background = colour(s.current);
  }
  banner.classList.toggle("mine", mine);
  banner.dataset.current = s.current;
  const n = T.push.seats.length;
  const round = Math.floor((s.turn - 1) / n) + 1;
  const left = mine && s.mandatory_left ? `, ${s.mandatory_left} mandatory build(s) left` : "";
  $("counts").textContent = `round ${round}, turn ${s.turn}${left} · deck ${s.deck}, discard ${s.discard.length}` +
    (s.ending && !s.over ? " · the last round" : "");
  $("status").textContent = T.seat === null ? "(watching)" : `(you are ${seatName(T.seat)})`;
  $("me-title").textContent = T.seat === null ? "Spectator" : `You: ${seatName(T.seat)}`;
  const name = T.rules.title || T.rules.name;
  document.title = mine ? `Your move: kbdsl ${name}` : s.over ? `Game over: kbdsl ${name}` : `kbdsl: ${name}`;
  if (mine && !T.wasMyMove && T.shown >= 0 && $("sound").checked) beep();
  T.wasMyMove = mine;
}

function beep() { // a short, quiet tone (WebAudio: nothing to download)
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator(), gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
  } catch (e) { /* no audio here: the title still tells */ }
}

function hand() {
  const s = T.push.state;
  const box = $("hand");
  box.replaceChildren();
  if (T.seat === null) { box.append(kb.el("span", {class: "hint", text: "Spectators see no hand."})); return; }
  const card = s.hand[T.seat];
  const spare = (s.spare && s.spare[T.seat]) || []; // the other cards of a hand of several, still to choose from
  const cardEl = (name, id) => {
    const terrain = T.rules.terrains.find(t => t.name === name);
    const sample = $("board").querySelector(`polygon.hex[data-terrain="${name}"]`); // the board's own colour
    return kb.el("span", {class: "card", id, "data-terrain": name, style: sample ? `background: ${sample.getAttribute("fill")}` : null,
                          text: `${terrain ? terrain.title : name}${terrain && terrain.letter ? " (" + terrain.letter + ")" : ""}`});
  };
  if (!card) { box.append(kb.el("span", {text: "Your card: "}), kb.el("span", {class: "card none", id: "my-card", text: "none now (you draw at the end of your turn)"})); return; }
  box.append(kb.el("span", {text: spare.length ? "Your cards: " : "Your card: "}), cardEl(card, "my-card"),
    ...spare.map((name, i) => cardEl(name, `my-card-${i + 2}`)));
  if (spare.length) box.append(kb.el("div", {class: "hint", text: "The first hex you build on with your card decides which one you play."}));
  if (s.drawn) box.append(kb.el("div", {id: "drawn", text: `Drawn by a tile this turn: ${title(s.drawn)}`}));
}

function targetsOf(action, from = null) {
  const moves = (T.push.legal || []).filter(m => m.do === action && !m.discard && (from === null || m.from === from));
  return [...new Set(moves.map(m => m.to).filter(Boolean))];
}
function sourcesOf(action) {
  return [...new Set((T.push.legal || []).filter(m => m.do === action && m.from).map(m => m.from))];
}
function isMove(action) {
  const p = part(action);
  return Boolean(p && p.part.kind === "move");
}
function noHex(action) { // an action that chooses no hex (draw a card, gold, a modifier): played at once
  const p = part(action);
  return Boolean(p && ["draw", "gold", "ignore"].includes(p.part.kind));
}

function actions() {
  const box = $("actions");
  box.replaceChildren();
  if (T.seat === null) { $("hint").textContent = "Moves appear here as the seats make them."; return; }
  const myTurn = T.push.actions !== undefined;
  const tiles = T.seat === null ? [] : T.push.state.tiles[T.seat];
  const list = myTurn ? T.push.actions
    : ["build", ...new Set(tiles.map(t => t.tile)), "end"].map(a => ({action: a, usable: false, reason: T.push.state.over ? "the game is over" : "it is not your turn"}));
  for (const a of list) {
    const p = part(a.action);
    const tile = p && p.tile;
    const rule = tile ? tileText(tile.name) : (a.action === "build" && T.texts.mandatory ? `Build: ${T.texts.mandatory}` : "");
    const tip = [rule, a.usable ? "" : `Not now: ${plain(a.reason)}`].filter(Boolean).join("\n");
    const classes = ["action", a.action === T.action ? "selected" : "", tile ? "tile" : ""].join(" ").trim();
    box.append(kb.el("button", {type: "button", class: classes, "data-action": a.action, "data-tile": tile ? tile.name : null,
      title: tip, "aria-disabled": a.usable ? null : "true",
      text: title(a.action), onclick: () => choose(a)}));
  }
  const undo = T.push.undoable || [];
  box.append(kb.el("button", {type: "button", class: "action undo", id: "undo", "aria-disabled": undo.length ? null : "true",
    title: undo.length ? `Take back: ${moveText(undo[undo.length - 1])}` : "Nothing to take back: only your own moves of this turn, until a card is drawn",
    text: "Undo", onclick: () => undo.length ? ask({cmd: "undo"}) : refuse({message: "Nothing to undo: only your own moves of this turn, before a card is drawn."})}));
  const hint = $("hint");
  const pending = T.push.state.pending;
  const stop = pending && pending.up_to ? ` Up to ${pending.left} more step(s): to stop, use another action or End turn.` : "";
  if (!myTurn) hint.textContent = "";
  else if (stop && T.action === pending.tile) hint.textContent = (isMove(T.action) && T.from ? `Click where the ${pieceAt(T.from)} on ${T.from} goes.` : `Click a highlighted hex: ${title(T.action)}.`) + stop;
  else if (T.action && isMove(T.action)) hint.textContent = T.from ? `Click where the ${pieceAt(T.from)} on ${T.from} goes.` : `Click one of your highlighted pieces to move it with ${title(T.action)}.`;
  else if (T.action) hint.textContent = `Click a highlighted hex: ${title(T.action)}.`;
  else hint.textContent = "End your turn, or use a tile.";
}

function choose(a) {
  if (a.action === "end") {
    if (!a.usable) return refuse({message: plain(a.reason) + "."});
    return ask({cmd: "play", move: {do: "end"}});
  }
  if (!a.usable) return refuse({message: `${title(a.action)}: ${plain(a.reason)}.`});
  if (noHex(a.action)) return ask({cmd: "play", move: {do: a.action}});
  T.action = a.action;
  T.from = null;
  clearRefusal();
  actions();
  highlight();
}

function highlight() {
  const board = $("board");
  board.querySelectorAll(".target, .source, .chosen").forEach(n => n.classList.remove("target", "source", "chosen"));
  if (!T.action || !T.push.legal) return;
  const mark = (hexes, cls) => hexes.forEach(h => board.querySelectorAll(`polygon.hex[data-hex="${h}"]`).forEach(n => n.classList.add(cls)));
  if (isMove(T.action) && T.from === null) mark(sourcesOf(T.action), "source");
  else {
    mark(targetsOf(T.action, T.from), "target");
    if (T.from) mark([T.from], "chosen");
  }
}

function clicked(hex) {
  const action = T.action || "build";
  if (isMove(action)) {
    if (T.from === null || sourcesOf(action).includes(hex) && !targetsOf(action, T.from).includes(hex)) {
      if (sourcesOf(action).includes(hex)) { T.from = hex; actions(); highlight(); return; }
      return ask({cmd: "play", move: {do: action, from: hex, to: hex}});
    }
    const from = T.from;
    T.from = null;
    return ask({cmd: "play", move: {do: action, from, to: hex}});
  }
  return ask({cmd: "play", move: {do: action, to: hex}});
}

// Per-seat fields of the view that this page has no column for (what a rule set adds: counters,
// gold, other pieces): lists with one entry per seat, shown by their key, so new content needs no
// change here. The view's lists that are not per seat are named, since their length may match.
const SHOWN = new Set(["settlements", "supply", "hand", "tiles", "taken"]);
const NOT_PER_SEAT = new Set(["log", "discard", "removed", "pieces", "mandatory_hexes"]);
function extras(s) { // shown once some seat has something in them
  const n = s.supply.length;
  return Object.keys(s).filter(k => !SHOWN.has(k) && !NOT_PER_SEAT.has(k) && Array.isArray(s[k]) && s[k].length === n &&
                                    s[k].some(v => cellText(v) !== "-"));
}
function cellText(v) {
  if (Array.isArray(v)) return v.map(x => typeof x === "object" && x !== null ? Object.values(x).join(" ") : x).join(", ") || "-";
  if (v !== null && typeof v === "object") return Object.entries(v).map(([k, x]) => `${title(k)} ${x}`).join(", ") || "-";
  return v === null ? "-" : String(v);
}

// One box per seat (reflows on any screen, never a table wider than its panel): who, their
// supply, card, tiles, other pieces, gold, and every per-seat field a rule set adds.
function players() {
  const s = T.push.state;
  const more = extras(s);
  const kinds = Object.keys(s.kind_supply || {}); // other piece kinds owned by players: each seat's supply of them
  const box = $("players");
  box.replaceChildren();
  T.push.seats.forEach((seat, p) => {
    const tiles = s.tiles[p].map(t => `${title(t.tile)}${t.used ? " (used)" : t.new ? " (new)" : ""}`).join(", ") || "-";
    const who = seat.kind === "bot" ? `bot: ${seat.bot}` : p === T.seat ? "you" : seat.open ? "a free seat" : "a person";
    const card = s.hand[p] ? title(s.hand[p]) : p === s.current && !s.over ? "hidden" : "-";
    const field = (label, value, attrs = {}) => kb.el("div", {class: "field"}, kb.el("span", {class: "key", text: label}),
      kb.el("span", {...attrs, text: value}));
    const gold = T.push.scores.scores[p].total;
    box.append(kb.el("div", {class: "seat-box" + (p === s.current && !s.over ? " current" : ""), "data-seat": p,
                             style: `border-left-color: ${colour(p)}`},
      kb.el("div", {class: "seat-head"}, kb.el("span", {class: "swatch", style: `background: ${colour(p)}`}),
        kb.el("strong", {text: seatName(p)}), ` ${who}`,
        ...(p === s.start ? [kb.el("span", {class: "first", title: "the first player: the game ends when the round comes back to them", text: "first player"})] : [])),
      field("supply", s.supply[p], {class: "supply"}), field("card", card, {class: "hand-cell"}),
      field(s.over ? "gold" : "gold so far", gold, {class: "gold"}), field("tiles", tiles, {class: "tiles"}),
      ...(kinds.length ? [field("pieces left", kinds.map(k => `${pieceGlyph(k)}${s.kind_supply[k][p]}`).join(" "),
        {class: "kinds", title: kinds.map(k => `${pieceTitle(k)} ${s.kind_supply[k][p]}`).join(", ")})] : []),
      ...more.map(k => field(k, cellText(s[k][p]), {"data-field": k}))));
  });
}

// Each card and task scored in this game, with its rule in plain English (the author's text and the
// engine's reading of the rule) and every seat's gold for it so far.
function cards() {
  const box = $("cards");
  const sheet = T.push.scores.scores;
  box.replaceChildren();
  for (const key of Object.keys(sheet[0]).filter(k => k !== "total")) {
    const t = T.texts.cards[key] || {title: title(key), text: "", rule: ""};
    const gold = kb.el("ul", {class: "gold-row"}, ...sheet.map((sc, p) => kb.el("li", {"data-seat": p},
      kb.el("span", {class: "swatch", style: `background: ${colour(p)}`}), `${seatName(p)}: `, kb.el("strong", {text: sc[key]}))));
    box.append(kb.el("article", {class: "card-text", "data-card": key},
      kb.el("h3", {text: t.title}), ...(t.text ? [kb.el("p", {class: "text", text: t.text})] : []),
      kb.el("p", {class: "rule", text: t.rule}), gold));
  }
}

// Location hexes tell their tile's rule on hover, as the buttons do.
function captions() {
  for (const cell of document.querySelectorAll("#board polygon.hex[data-location]:not([data-location=''])")) {
    const tip = cell.querySelector("title");
    if (tip) tip.textContent += "\n" + tileText(cell.dataset.location);
    cell.dataset.tile = cell.dataset.location;
  }
}

// The moves of the last change, animated once: new pieces drop in, the last turn's marks pulse.
function animate(played) {
  if (!played || !played.length) return;
  const hexes = new Set(played.flatMap(x => [x.move.to, x.move.from]).filter(Boolean));
  for (const piece of document.querySelectorAll("#board .piece")) {
    if (hexes.has(piece.dataset.hex)) piece.classList.add("fresh");
  }
}

function scoreTable(table, scores) {
  const keys = Object.keys(scores[0]).filter(k => k !== "total");
  table.replaceChildren(kb.el("thead", {}, kb.el("tr", {}, kb.el("th", {text: ""}), ...scores.map((_, p) => kb.el("th", {text: seatName(p)})))));
  const body = kb.el("tbody");
  for (const k of [...keys, "total"]) {
    body.append(kb.el("tr", {class: k === "total" ? "total" : "", "data-score": k}, kb.el("th", {text: k === "total" ? "Total" : title(k)}),
      ...scores.map((sc, p) => kb.el("td", {"data-seat": p, text: sc[k]}))));
  }
  table.append(body);
}

// The log: every move with its seat and what it changed. The whole history is fetched once (and
// after a gap); each push then adds its moves, or takes back an undone one.
async function syncHistory(push) {
  const moves = push.state.log.length;
  if (T.history && T.historyVersion === push.version - 1) {
    T.history = push.played.length ? T.history.concat(push.played) : T.history.slice(0, moves);
    T.historyVersion = push.version;
  }
  if (!T.history || T.historyVersion !== push.version || T.history.length !== moves) {
    const reply = await fetch(`/api/tables/${encodeURIComponent(T.table)}/history`);
    const data = await reply.json();
    T.history = data.played;
    T.historyVersion = data.version;
  }
}

function log() {
  const list = $("log");
  list.replaceChildren();
  for (const x of T.history) {
    const notes = x.events.map(eventText).filter(Boolean);
    list.append(kb.el("li", {class: "p" + (x.player % 8), text: `${seatName(x.player)} ${moveText(x.move)}`},
      ...notes.map(text => kb.el("div", {class: "event", text}))));
  }
  list.scrollTop = list.scrollHeight;
}

// -- the board -----------------------------------------------------------------------------
async function drawBoard(url, box, version) {
  const reply = await fetch(url);
  if (!reply.ok) return;
  const svg = await reply.text();
  if (version !== undefined && T.push.version !== version) return; // a newer push is being shown
  box.innerHTML = svg;
}

$("board").addEventListener("click", event => {
  if (zoom.moved) return; // the end of a drag or a pinch, not a click
  const node = event.target.closest("[data-hex]");
  if (node && T.push && !T.push.state.over) clicked(node.dataset.hex);
});

// -- the end: a dialog with the winners, the final table, replay and a rematch ---------------------
function finished() {
  const sc = T.push.scores;
  $("score-title").firstChild.textContent = "Gold ";
  $("score-title").querySelector(".provisional").textContent = "(final)";
  const best = sc.scores[sc.winners[0]].total;
  const names = sc.winners.map(seatName);
  $("winners").textContent = sc.winners.length === 1 ? `${names[0]} wins with ${best} gold.`
    : `${names.join(" and ")} share the victory with ${best} gold each.`;
  $("tiebreak").textContent = sc.winners.length > 1 ? "A tie: the rules break no ties, so every seat with the most gold wins."
    : `Runner-up: ${second(sc)}.`;
  scoreTable($("final-scores"), sc.scores);
  const link = T.push.rematch;
  $("rematch").textContent = link ? "Join the rematch" : "New game, same seats";
  $("rematch-note").textContent = link ? "A rematch with the same seats is ready." : "";
  if (!T.finalClosed) $("final").hidden = false;
  $("show-final").hidden = false;
}

function second(sc) { // the next best total and who has it
  const totals = sc.scores.map(x => x.total);
  const rest = totals.filter(t => t < totals[sc.winners[0]]);
  if (!rest.length) return "none";
  const next = Math.max(...rest);
  return `${totals.map((t, p) => t === next ? seatName(p) : null).filter(x => x !== null).join(" and ")} with ${next} gold`;
}

function go(link) { // to another table's page (a link that changes only the fragment needs a reload)
  const same = new URL(link, location.href).pathname === location.pathname;
  location.href = link;
  if (same) location.reload();
}

async function rematch() {
  if (T.push.rematch) { go(T.push.rematch); return; }
  const headers = {"Content-Type": "application/json", ...(kb.token ? {Authorization: "Bearer " + kb.token} : {})};
  const reply = await fetch(`/api/tables/${encodeURIComponent(T.table)}/rematch`, {method: "POST", headers, body: "{}"});
  const data = await reply.json();
  if (!reply.ok) { $("rematch-note").textContent = data.error.message; return; }
  go(data.link);
}

async function replay(step) {
  const reply = await fetch(`/api/tables/${encodeURIComponent(T.table)}/replay?step=${Math.max(0, step)}`);
  const data = await reply.json();
  T.replayStep = data.step;
  $("replay-step").textContent = `move ${data.step} of ${data.steps}`;
  const x = data.step ? T.history[data.step - 1] : null;
  $("replay-move").textContent = x ? `Move ${data.step}: ${seatName(x.player)} ${moveText(x.move)}` : "The start of the game.";
  await drawBoard(boardUrl(`step=${data.step}`), $("replay-board"));
  scoreTable($("replay-scores"), data.scores);
  T.replayShown = data.step;
}
$("replay-first").onclick = () => replay(0);
$("replay-prev").onclick = () => replay(T.replayStep - 1);
$("replay-next").onclick = () => replay(T.replayStep + 1);
$("replay-last").onclick = () => replay(T.push.state.log.length);
$("show-replay").onclick = () => { $("replay").hidden = false; replay(T.push.state.log.length); };
$("rematch").onclick = rematch;
$("close-final").onclick = () => { T.finalClosed = true; $("final").hidden = true; $("show-final").focus(); };
$("show-final").onclick = () => { T.finalClosed = false; $("final").hidden = false; };
document.addEventListener("keydown", e => { if (e.key === "Escape" && !$("final").hidden) $("close-final").click(); });

// -- tabs and settings ---------------------------------------------------------------------------
function showTab(tab) {
  for (const t of document.querySelectorAll('[role="tab"]')) {
    const on = t === tab;
    t.setAttribute("aria-selected", on ? "true" : "false");
    $(t.getAttribute("aria-controls")).hidden = !on;
  }
}
document.querySelectorAll('[role="tab"]').forEach(t => t.addEventListener("click", () => showTab(t)));
for (const id of ["coords", "sound"]) { // remembered in this browser
  $(id).checked = localStorage.getItem("kbdsl-" + id) === "1";
  $(id).addEventListener("change", () => {
    localStorage.setItem("kbdsl-" + id, $(id).checked ? "1" : "0");
    if (id === "coords" && T.push) show({...T.push, version: T.push.version});
  });
}

// -- start -------------------------------------------------------------------------------------------
(async () => {
  const reply = await kb.ask({cmd: "rules", game: T.table});
  if (!reply.ok) { $("status").textContent = reply.error.message; return; }
  T.rules = reply.result;
  document.title = `kbdsl: ${T.rules.title || T.rules.name}`;
  T.texts = await (await fetch(`/api/tables/${encodeURIComponent(T.table)}/texts`)).json();
  connect();
})();
