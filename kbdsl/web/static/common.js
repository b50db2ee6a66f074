// Shared by the pages: the protocol over HTTP (POST /api) and small DOM helpers.
"use strict";

const kb = {
  token: null, // this seat's token (from the link's #seat=...), sent as a Bearer header

  async ask(request) {
    const headers = {"Content-Type": "application/json"};
    if (kb.token) headers.Authorization = "Bearer " + kb.token;
    const reply = await fetch("/api", {method: "POST", headers, body: JSON.stringify(request)});
    return reply.json();
  },

  el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) node.append(c);
    return node;
  },

  titles(list) { // name -> title, for terrains, tiles and cards of a rule set description
    return Object.fromEntries((list || []).map(x => [x.name, x.title]));
  },
};
