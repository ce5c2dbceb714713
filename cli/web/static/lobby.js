// The lobby: games on the LAN (join or watch), your own games, and hosting a new one.
"use strict";

let busy = false;
let titles = {}; // each game's name for people, by kind (the node's registry says)

function openGame(game) {
  location.href = withToken("/game/" + game);
}

async function run(what, path, body) {
  if (busy) return;
  busy = true;
  showError(what + "…");
  try {
    const reply = await api(path, body);
    openGame(reply.game);
  } catch (exc) {
    showError(exc.message);
  } finally {
    busy = false;
  }
}

function lanRow(game) {
  const open = game.state === "lobby" && game.seats_free > 0 && !game.yours;
  return el("tr", { "data-game": game.game, "data-name": game.name },
    el("td", { class: "name" }, game.name),
    el("td", { title: game.kind }, titles[game.kind] || game.kind),
    el("td", {}, game.host_player ? game.host_player + " " : "", el("code", {}, game.host)),
    el("td", {}, `${game.seats_taken}/${game.seats_total}`),
    el("td", {}, String(game.seats_free)),
    el("td", {}, game.state),
    el("td", { class: "actions" },
      open ? el("button", { class: "join", onclick: () => run("joining", "/api/join", { instance: game.instance }) }, "Join") : null,
      !game.yours ? el("button", { class: "watch secondary", onclick: () => run("connecting", "/api/watch", { instance: game.instance }) }, "Watch") : null,
      game.yours ? el("span", { class: "note" }, "yours") : null,
    ),
  );
}

function mineRow(game) {
  return el("tr", { "data-game": game.game, "data-name": game.name },
    el("td", { class: "name" }, game.name),
    el("td", { title: game.kind }, titles[game.kind] || game.kind),
    el("td", {}, game.seats),
    el("td", {}, game.outcome || game.state),
    el("td", {}, game.role),
    el("td", { class: "actions" },
      el("a", { class: "button", href: withToken("/game/" + game.game) }, "Open"),
      el("a", { class: "button secondary replay", href: withToken("/replay/" + game.game) }, "Replay"),
    ),
  );
}

let kindsShown = false;
let hostable = [];

// The players and limit fields follow the chosen game (what the node says it takes).
function showKind() {
  const kind = hostable.find((k) => k.kind === document.getElementById("host-kind").value);
  if (!kind) return;
  const seats = document.getElementById("host-seats");
  const options = [];
  for (let n = kind.min_seats; n <= kind.max_seats; n++) options.push(el("option", { value: n }, String(n)));
  seats.replaceChildren(...options);
  seats.disabled = kind.min_seats === kind.max_seats;
  document.getElementById("host-limit-label").textContent = kind.limit;
  // People (who join from the LAN), or a bot at one of the game's levels in every other seat.
  document.getElementById("host-vs").replaceChildren(
    el("option", { value: "" }, "people"),
    ...kind.levels.map((l) => el("option", { value: l.level }, `${l.level} bot (${l.what})`)));
}

function render(lobby) {
  titles = lobby.titles || {};
  document.getElementById("me").textContent =
    `${lobby.player} · ${lobby.fingerprint} · node at ${lobby.address}`;
  if (!kindsShown) {
    hostable = lobby.hostable;
    const select = document.getElementById("host-kind");
    select.replaceChildren(...hostable.map((k) => el("option", { value: k.kind }, k.title || k.kind)));
    showKind();
    kindsShown = true;
    document.getElementById("host-button").disabled = false; // the games are known: host one
  }
  document.getElementById("internet").hidden = !lobby.internet;
  const lan = document.querySelector("#lan tbody");
  lan.replaceChildren(...lobby.lan.map(lanRow));
  document.getElementById("lan-note").textContent = !lobby.discovery
    ? "this node does not look for games on the LAN (zeroconf is off)"
    : lobby.lan.length ? "" : "no games seen on the LAN yet — host one, or wait a moment";
  const mine = document.querySelector("#mine tbody");
  mine.replaceChildren(...lobby.mine.map(mineRow));
  document.getElementById("mine").hidden = !lobby.mine.length;
  document.getElementById("mine-note").textContent = lobby.mine.length
    ? "" : "none yet: the games you host, join or watch are kept here, with their replays";
}

async function refresh() {
  try {
    render(await api("/api/lobby"));
    if (!busy && document.getElementById("error").textContent.startsWith("your node")) showError("");
  } catch (exc) {
    showError(exc.message);
  }
}

document.getElementById("host-kind").addEventListener("change", showKind);
document.getElementById("host-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const limit = document.getElementById("host-limit").value;
  run("hosting", "/api/host", {
    kind: document.getElementById("host-kind").value,
    name: document.getElementById("host-name").value,
    seats: Number(document.getElementById("host-seats").value),
    limit: limit ? Number(limit) : null,
    vs: document.getElementById("host-vs").value || null,
  });
});

document.getElementById("invite-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = document.getElementById("invite-text").value.trim();
  if (text) run("joining", "/api/join-invite", { invite: text });
});

refresh();
setInterval(refresh, 1000);
