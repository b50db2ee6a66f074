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
  await loadRules();
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

function addSeat(kind) {
  const who = kb.el("select", {class: "seat-kind", "aria-label": "who sits here"},
    kb.el("option", {value: "person", text: "a person"}),
    ...setup.hello.bots.map(b => kb.el("option", {value: "bot:" + b, text: `bot: ${b}`})));
  if (kind === "bot") who.value = "bot:" + (setup.hello.bots.includes("medium") ? "medium" : setup.hello.bots[0]);
  $("seats").append(kb.el("li", {}, who));
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
  for (const who of document.querySelectorAll(".seat-kind")) {
    spec.seats.push(who.value === "person" ? {kind: "person"} : {kind: "bot", bot: who.value.slice(4)});
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
  for (const s of data.seats) {
    const cell = s.link
      ? kb.el("td", {}, kb.el("a", {href: link(s.link), class: "seat-link", "data-seat": s.seat, text: "join as seat " + s.seat}),
              " ", kb.el("input", {readonly: true, value: link(s.link), size: 60, "aria-label": "seat link"}))
      : kb.el("td", {text: "plays on the server"});
    rows.append(kb.el("tr", {}, kb.el("td", {text: "P" + s.seat}),
                      kb.el("td", {text: s.kind === "bot" ? "bot: " + s.bot : "a person"}), cell));
  }
  rows.append(kb.el("tr", {}, kb.el("td", {text: "-"}), kb.el("td", {text: "spectators"}),
    kb.el("td", {}, kb.el("a", {href: link(data.spectator), id: "spectator-link", text: "watch"}),
          " ", kb.el("input", {readonly: true, value: link(data.spectator), size: 60, "aria-label": "spectator link"}))));
  $("created").hidden = false;
  $("created").scrollIntoView();
}

start();
