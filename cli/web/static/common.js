// What every page shares: the page key, calls to this node, and small DOM helpers.
"use strict";

// The page key the node's link left in this origin's storage (cli/web/guard.py): the node's
// API and streams want it besides the cookie, which other servers on 127.0.0.1 also get.
// Read at every call: a link opened in another tab leaves a newer one.
function pageKey() {
  return localStorage.getItem("creepnet-key-" + location.port) || "";
}

function withToken(path) {
  return path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(pageKey());
}

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  };
  let response;
  try {
    response = await fetch(withToken(path), options);
  } catch (exc) {
    throw new Error("your node does not answer (is `creepnet ui` still running?)");
  }
  const type = response.headers.get("content-type") || "";
  const value = type.includes("json") ? await response.json() : { error: await response.text() };
  if (!response.ok) throw new Error(value.error || response.statusText);
  return value;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) {
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  return node;
}

function showError(text) {
  const box = document.getElementById("error");
  box.textContent = text || "";
  box.hidden = !text;
}

// The dot beside a name says whether the player's node is there (views.py ``presence``).
const PRESENCE = {
  connected: "connected",
  silent: "silent: not connected now (the game waits; nothing played is lost)",
  retired: "retired: the table plays on without them",
};

function seatRow(seat) {
  const side = seat.side && !seat.side.includes(" ") ? seat.side : null;
  const presence = PRESENCE[seat.presence] ? seat.presence : null;
  return el("li", { class: "seat", "data-seat": seat.seat },
    side ? el("span", { class: "chip " + side, title: side }) : null,
    presence ? el("span", { class: "presence " + presence, title: PRESENCE[presence],
      "aria-label": PRESENCE[presence] }) : null,
    el("span", { class: "player" }, seat.player),
    el("code", { class: "fp", title: "key fingerprint" }, seat.fingerprint),
    side ? el("span", { class: "side" }, side) : null,
    seat.you ? el("span", { class: "you" }, "you") : null,
    seat.connected === false ? el("span", { class: "offline" }, "not connected") : null,
  );
}

// Each game's page script registers its view: draw(box, board, view, ui) with ui
// {act(text), rerender(), offerDraw()} or null (a spectator, a replay, a game over);
// summary(board) -> one line; optional hint(board) (the board offers clicks now),
// escape() (drop a pick: true if there was one) and reset() (after a move is sent).
// The page loads the script its game's view names (view.page), so it knows no game itself.
const VIEWS = {};
const viewLoads = {};

function registerView(kind, view) {
  VIEWS[kind] = view;
}

// The view module for page (the "page" of a game or replay view), loading it once;
// null for a game with no board on the page.
function loadView(page) {
  if (!page || !page.module) return Promise.resolve(null);
  if (VIEWS[page.module]) return Promise.resolve(VIEWS[page.module]);
  if (!viewLoads[page.module]) {
    for (const href of page.styles) {
      document.head.append(el("link", { rel: "stylesheet", href: withToken(href) }));
    }
    viewLoads[page.module] = new Promise((resolve, reject) => {
      const script = el("script", { src: withToken(page.script) });
      script.addEventListener("load", () => resolve(VIEWS[page.module] || null));
      script.addEventListener("error", () => reject(new Error("could not load this game's page")));
      document.head.append(script);
    });
  }
  return viewLoads[page.module];
}
