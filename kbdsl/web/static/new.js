// The new-game page: a set-up from the rule set's own description (protocol `rules`), seats, share links.
"use strict";

const setup = {hello: null, rules: null};
const $ = id => document.getElementById(id);

async function start() {
  const hello = await kb.ask({cmd: "hello"});
  setup.hello = hello.result;
  for (const name of setup.hello.rules) $("rules").append(kb.el("option", {value: name, text: name}));
  $("rules").addEventListener("change", loadRules);
  $("preset").addEventListener("change", applyPreset);
  $("add-seat").addEventListener("click", () => { addSeat("bot"); seatButtons(); });
  $("remove-seat").addEventListener("click", () => { $("seats").lastElementChild.remove(); seatButtons(); });
  $("setup").addEventListener("submit", create);
  $("my-name").value = localStorage.getItem("kbdsl-name") || "";
  $("my-name").addEventListener("change", () => localStorage.setItem("kbdsl-name", $("my-name").value));
  await Promise.all([loadRules(), lobby()]);
  setInterval(lobby, 5000);
}

// -- the lobby: open tables, each with its rule set, seats (free ones to join) and a watch link ---------
async function lobby() {
  const reply = await fetch("/api/tables");
  if (!reply.ok) return;
  const data = await reply.json();
  const list = $("tables");
  list.replaceChildren();
  if (!data.tables.length) list.append(kb.el("li", {class: "hint", text: "No open table yet: start one below."}));
  for (const t of data.tables) {
    const who = t.seats.map(s => s.kind === "bot" ? `bot ${s.bot}` : s.open ? "free seat" : s.name || "a person").join(", ");
    const join = t.open ? kb.el("button", {type: "button", class: "join", "data-table": t.table, text: `join (${t.open} free)`,
                                           onclick: () => claim(t.table)}) : kb.el("span", {class: "hint", text: "no free seat"});
    list.append(kb.el("li", {"data-table": t.table}, kb.el("strong", {text: t.title}), ` · ${t.seats.length} players: ${who} · turn ${t.turn} `,
      join, " ", kb.el("a", {href: t.watch, class: "watch", text: "watch"})));
  }
}

async function claim(table) {
  $("lobby-error").textContent = "";
  const reply = await fetch(`/api/tables/${encodeURIComponent(table)}/seats`, {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify({name: $("my-name").value.trim() || null})});
  const data = await reply.json();
  if (!reply.ok) { $("lobby-error").textContent = data.error.message; lobby(); return; }
  location.href = data.link;
}

async function loadRules() {
  const reply = await kb.ask({cmd: "rules", rules: $("rules").value});
  if (!reply.ok) { $("error").textContent = reply.error.message; return; }
  const r = setup.rules = reply.result;
  $("rules-text").textContent = [r.title, r.text].filter(Boolean).join(": ");
  $("preset").replaceChildren(kb.el("option", {value: "", text: "none: choose below or at random"}),
    ...r.presets.map(p => kb.el("option", {value: p.name, text: p.name + (p.text ? ": " + p.text : "")})));

  const boards = $("boards");
  boards.replaceChildren(kb.el("legend", {text: "Board sections"}));
  for (const b of r.boards) {
    const [rows, cols] = b.grid;
    const box = kb.el("div", {class: "board-choice", "data-board": b.name});
    box.append(kb.el("p", {class: "hint", text: `${b.name}: ${b.text || ""} Leave a slot on "random" to draw the board's sections at random.`}));
    const grid = kb.el("div", {class: "slots", style: `grid-template-columns: repeat(${cols}, auto)`});
    for (let i = 0; i < rows * cols; i++) {
      const pick = kb.el("select", {"data-slot": i, "aria-label": `${b.name} section ${i + 1}`},
        kb.el("option", {value: "", text: "random"}),
        ...b.sections.map(s => kb.el("option", {value: s.name, text: s.title})));
      const slot = kb.el("span", {class: "slot"}, pick);
      if (b.turnable) slot.append(kb.el("label", {class: "turn"}, kb.el("input", {type: "checkbox", "data-turn": i}), " turned"));
      grid.append(slot);
    }
    box.append(grid);
    boards.append(box);
  }

  const cards = $("cards");
  cards.replaceChildren(kb.el("legend", {text: "Kingdom Builder cards"}),
    kb.el("p", {class: "hint", text: "Leave one on \"random\" to draw all cards at random."}));
  for (let i = 0; i < r.cards_in_play; i++) {
    cards.append(kb.el("select", {"data-card": i, "aria-label": `card ${i + 1}`},
      kb.el("option", {value: "", text: "random"}),
      ...r.cards.map(c => kb.el("option", {value: c.name, text: c.title, title: c.texts.join(" ")}))));
  }

  const options = $("options");
  options.replaceChildren(kb.el("legend", {text: "Rule options"}));
  for (const o of r.options) {
    options.append(kb.el("label", {class: "option", title: o.ruling ? `RULINGS ${o.ruling}` : null},
      kb.el("input", {type: "checkbox", "data-option": o.name, checked: o.default}), ` ${o.name}: ${o.text}`));
  }

  const seats = $("seats");
  const have = seats.children.length;
  if (!have) { addSeat("person"); addSeat("bot"); addSeat("bot"); }
  while (seats.children.length > r.players.max) seats.lastElementChild.remove();
  while (seats.children.length < r.players.min) addSeat("bot");
  seatButtons();
}

const LEVELS = ["easy", "medium", "hard"]; // difficulty names, offered first where the server has them

function addSeat(kind) {
  const bots = setup.hello.bots;
  const levels = LEVELS.filter(b => bots.includes(b));
  const who = kb.el("select", {class: "seat-kind", "aria-label": "who sits here"},
    kb.el("option", {value: "person", text: "a person"}),
    ...levels.map(b => kb.el("option", {value: "bot:" + b, text: `bot, ${b}`})),
    ...bots.filter(b => !levels.includes(b)).map(b => kb.el("option", {value: "bot:" + b, text: `bot: ${b}`})));
  if (kind === "bot") who.value = "bot:" + (setup.hello.bots.includes("medium") ? "medium" : setup.hello.bots[0]);
  const first = !$("seats").children.length;
  const name = kb.el("input", {class: "seat-name", maxlength: 24, "aria-label": "the person's name", placeholder: "name",
                               value: first ? localStorage.getItem("kbdsl-name") || "" : ""});
  const open = kb.el("label", {class: "seat-open", title: "anyone in the lobby may take this seat"},
    kb.el("input", {type: "checkbox", class: "seat-open-box"}), " open to the lobby");
  const person = () => { name.hidden = open.hidden = who.value !== "person"; };
  who.addEventListener("change", person);
  person();
  $("seats").append(kb.el("li", {}, who, " ", name, " ", open));
}

function seatButtons() {
  const n = $("seats").children.length;
  $("add-seat").disabled = n >= setup.rules.players.max;
  $("remove-seat").disabled = n <= setup.rules.players.min;
}

function applyPreset() {
  const p = setup.rules.presets.find(x => x.name === $("preset").value);
  for (const box of document.querySelectorAll(".board-choice")) {
    const chosen = p ? p.sections[box.dataset.board] || [] : [];
    box.querySelectorAll("select").forEach((s, i) => { s.value = (chosen[i] || "").split("@")[0]; });
    box.querySelectorAll("input[data-turn]").forEach((c, i) => { c.checked = (chosen[i] || "").endsWith("@180"); });
  }
  document.querySelectorAll("select[data-card]").forEach((s, i) => { s.value = p ? p.cards[i] || "" : ""; });
}

function request() {
  const spec = {rules: $("rules").value, seats: []};
  const sections = {};
  for (const box of document.querySelectorAll(".board-choice")) {
    const picks = [...box.querySelectorAll("select")].map(s => s.value);
    const turns = [...box.querySelectorAll("input[data-turn]")].map(c => c.checked);
    if (picks.every(Boolean)) sections[box.dataset.board] = picks.map((s, i) => turns[i] ? s + "@180" : s);
    else if (picks.some(Boolean)) throw new Error(`Choose every section of ${box.dataset.board}, or leave them all on "random".`);
  }
  if (Object.keys(sections).length) spec.sections = sections;
  const cards = [...document.querySelectorAll("select[data-card]")].map(s => s.value);
  if (cards.length && cards.every(Boolean)) spec.cards = cards;
  else if (cards.some(Boolean)) throw new Error('Choose every card, or leave them all on "random".');
  const options = {};
  for (const box of document.querySelectorAll("input[data-option]")) options[box.dataset.option] = box.checked;
  if (Object.keys(options).length) spec.options = options;
  for (const li of $("seats").children) {
    const who = li.querySelector(".seat-kind").value;
    const name = li.querySelector(".seat-name").value.trim();
    const open = li.querySelector(".seat-open-box").checked;
    spec.seats.push(who === "person" ? {kind: "person", ...(name ? {name} : {}), ...(open ? {open} : {})} : {kind: "bot", bot: who.slice(4)});
  }
  return spec;
}

async function create(event) {
  event.preventDefault();
  $("error").textContent = "";
  let spec;
  try { spec = request(); } catch (e) { $("error").textContent = e.message; return; }
  const reply = await fetch("/api/tables", {method: "POST", headers: {"Content-Type": "application/json"},
                                              body: JSON.stringify(spec)});
  const data = await reply.json();
  if (!reply.ok) { $("error").textContent = data.error.message; return; }
  const rows = $("links").querySelector("tbody");
  rows.replaceChildren();
  const link = path => new URL(path, location.origin).href;
  const copy = url => kb.el("button", {type: "button", class: "copy", text: "copy",
    onclick: event => navigator.clipboard.writeText(url).then(() => { event.target.textContent = "copied"; })});
  for (const s of data.seats) {
    const cell = s.link
      ? kb.el("td", {}, kb.el("a", {href: link(s.link), class: "seat-link", "data-seat": s.seat, text: "join as seat " + s.seat}),
              " ", kb.el("input", {readonly: true, value: link(s.link), size: 60, "aria-label": "seat link"}), " ", copy(link(s.link)))
      : kb.el("td", {text: "plays on the server"});
    const who = s.kind === "bot" ? "bot: " + s.bot : (s.name || "a person") + (s.open ? " (open to the lobby)" : "");
    rows.append(kb.el("tr", {}, kb.el("td", {text: "P" + s.seat}), kb.el("td", {text: who}), cell));
  }
  rows.append(kb.el("tr", {}, kb.el("td", {text: "-"}), kb.el("td", {text: "spectators"}),
    kb.el("td", {}, kb.el("a", {href: link(data.spectator), id: "spectator-link", text: "watch"}),
          " ", kb.el("input", {readonly: true, value: link(data.spectator), size: 60, "aria-label": "spectator link"}),
          " ", copy(link(data.spectator)))));
  $("created").hidden = false;
  $("created").scrollIntoView();
  lobby();
}

start();
