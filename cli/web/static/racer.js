// The Creepy Racer table: every line of Creeps, the counts, the discard pile, the attack, your
// hand; and the legal actions the node sends, as clicks.  The page knows no rule: a card or a
// verb is playable when an action of the node's list names it, a Creep or seat is a target
// when such an action aims at it, and what is sent is the action's own text.
"use strict";

const KIND_WORDS = {
  creep: "Creep", calamity: "Calamity", good_fortune: "Good Fortune", monster: "Monster", hero: "Hero",
};
const VERB_BUTTONS = { attack: "Attack…", with: "Enlist…", ask: "Ask…", force: "Force…" };

// What is picked: a hand card ("card:SLOT") or a verb that needs a target ("attack"); or null.
let racerPick = null;
let racerPickSlot = null; // the copy clicked, when the pick is a hand card

function cardFace(card, extra) {
  return [
    el("span", { class: "card-kind" }, KIND_WORDS[card.kind] || card.kind),
    el("span", { class: "card-name" }, card.name),
    extra || null,
  ];
}

function seatName(view, seat) {
  const row = view.seats[seat];
  return row ? row.player : `seat ${seat}`;
}

// board: the node's racer view; view: the whole game view; ui: {act(text), refresh()} or null.
function drawRacer(container, board, view, ui) {
  const actions = (ui && board.actions) || [];
  if (racerPick && !actions.some((a) => a.group === racerPick)) racerPick = null;
  const picked = actions.filter((a) => a.group === racerPick);
  const creepTargets = new Map(picked.filter((a) => a.creep !== null).map((a) => [a.creep, a]));
  const seatTargets = new Map(picked.filter((a) => a.seat !== null).map((a) => [a.seat, a]));
  const send = (action) => { racerPick = null; ui.act(action.action); };

  const seats = board.players.map((player) => seatBox(board, view, player, creepTargets, seatTargets, send));
  const you = view.you;
  if (you !== null && you !== undefined) seats.push(seats.splice(you, 1)[0]); // yours nearest your hand
  const parts = [el("div", { class: "racer-top" }, ...racerHeadline(board, view))];
  const attack = attackBar(board, view);
  if (attack) parts.push(attack);
  const hostage = board.hostage;
  if (hostage) {
    const step = hostage.step === "answer" ? "waits for the answer" : "each takes a card blindly from the other's hand";
    parts.push(el("p", { class: "racer-bar hostage", id: "hostage" },
      `Hostage Exchange: ${seatName(view, hostage.asker)} (seat ${hostage.asker}) and `,
      `${seatName(view, hostage.target)} (seat ${hostage.target}): ${step}`));
  }
  parts.push(el("div", { class: "racer-seats" }, ...seats));
  if (board.hand) parts.push(handBox(board, actions, send));
  container.replaceChildren(el("div", { class: "racer", "data-turn": board.turn ? board.turn.number : 0 }, ...parts));
  if (ui) drawChoices(board, actions, picked, send);
}

function racerHeadline(board, view) {
  const turn = board.turn;
  const parts = [];
  if (turn) {
    const moves = board.deciding && board.deciding.topic === "move"
      ? `, ${turn.moves_left} move${turn.moves_left === 1 ? "" : "s"} left` : "";
    parts.push(el("span", { class: "turn", id: "turn" }, `Turn ${turn.number}: ${seatName(view, turn.seat)}'s turn${moves}`));
  }
  const top = board.discard.top;
  parts.push(el("span", { class: "pile", id: "discard" }, "Discard pile: ",
    top ? el("span", { class: `mini ${top.kind}`, "data-card": top.card }, top.name) : "empty",
    ` (${board.discard.count})`));
  parts.push(el("span", { class: "pile", id: "dead" }, `Dead Creeps: ${board.dead.length}`));
  return parts;
}

function attackBar(board, view) {
  const attack = board.attack;
  if (!attack) return null;
  let text = `Attack by ${seatName(view, attack.attacker)}: ${attack.attackers.join(" + ") || "(no Creep yet)"} on ${attack.target}`;
  text += attack.launched ? ` — ${attack.values[0]} against ${attack.values[1]}` : " (being declared)";
  if (attack.heroes.length) text += `; Heroes played: ${attack.heroes.join(", ")}`;
  return el("p", { class: "racer-bar attack", id: "attack" }, text);
}

function seatBox(board, view, player, creepTargets, seatTargets, send) {
  const turn = board.turn && board.turn.seat === player.seat;
  const target = seatTargets.get(player.seat);
  const classes = ["racer-seat"];
  if (turn) classes.push("turn");
  if (player.seat === view.you) classes.push("mine");
  if (!player.active) classes.push("out");
  if (target) classes.push("target");
  const head = el("div", { class: "racer-seat-head" },
    el("span", { class: "player" }, `${seatName(view, player.seat)}`),
    el("span", { class: "fp" }, `seat ${player.seat}`),
    player.seat === view.you ? el("span", { class: "you" }, "you") : null,
    turn ? el("span", { class: "turn-mark" }, "to play") : null,
    el("span", { class: "counts" },
      player.active
        ? `hand ${player.hand_count} · deck ${player.deck_count} (${player.deck_creeps} Creeps)`
        : "out of the race"),
    player.forced_hostage ? el("span", { class: "note" }, "forced exchange used") : null,
    target ? el("button", { class: "seat-target", onclick: () => send(target) }, target.text) : null,
  );
  const line = player.line.map((creep) => creepCard(creep, creepTargets.get(creep.slot), send));
  // A replay of a finished game knows every hand: shown under the seat's line.
  const hand = player.hand ? el("div", { class: "seat-hand" }, "hand: ",
    ...(player.hand.length ? player.hand.map((c) => el("span", { class: `mini ${c.kind}`, "data-card": c.card }, c.name)) : ["none"])) : null;
  return el("section", { class: classes.join(" "), "data-seat": player.seat,
    onclick: target ? (e) => { if (e.target.tagName !== "BUTTON") send(target); } : null },
  head,
  el("div", { class: "line" }, ...(line.length ? line : [el("p", { class: "note" }, "no Creep in line")])),
  hand);
}

function creepCard(creep, target, send) {
  const classes = ["card", "creep"];
  if (creep.hit) classes.push("hit");
  if (creep.attacking) classes.push("attacking");
  if (creep.attacked) classes.push("attacked");
  if (target) classes.push("target");
  const strength = el("span", { class: "strength", title: "strength" }, String(creep.strength),
    creep.strength !== creep.base ? el("small", {}, `/${creep.base}`) : null);
  return el("div", {
    class: classes.join(" "), "data-creep": creep.slot, "data-card": creep.card, "data-label": creep.label,
    title: target ? target.text : `${creep.label}: ${creep.name}`,
    onclick: target ? () => send(target) : null,
  },
  el("span", { class: "creep-head" }, el("span", { class: "label" }, creep.label), strength),
  el("span", { class: "card-name" }, creep.name),
  el("span", { class: "attached" }, ...creep.attached.map((c) => el("span", { class: `mini ${c.kind}`, "data-card": c.card }, c.name))));
}

function handBox(board, actions, send) {
  const cards = board.hand.map((card) => {
    // Any copy of a card plays the one offer the node makes for it (racer_view.py "plays").
    const group = card.plays || `card:${card.slot}`;
    const playable = actions.some((a) => a.group === group);
    const classes = ["card", "in-hand", card.kind];
    if (playable) classes.push("playable");
    if (racerPick === group && racerPickSlot === card.slot) classes.push("selected");
    return el("button", {
      class: classes.join(" "), "data-slot": card.slot, "data-card": card.card, disabled: !playable,
      title: playable ? "click to play" : "cannot be played now",
      onclick: () => {
        const again = racerPick === group && racerPickSlot === card.slot;
        racerPick = again ? null : group;
        racerPickSlot = again ? null : card.slot;
        rerender();
      },
    }, el("span", { class: "number" }, String(card.number)), ...cardFace(card));
  });
  return el("div", { class: "hand", id: "hand" },
    el("h3", {}, `Your hand (${board.hand.length})`),
    el("div", { class: "hand-cards" }, ...(cards.length ? cards : [el("p", { class: "note" }, "no cards")])));
}

// The buttons of the panel: with nothing picked, every verb (Pass, Attack…, Yes…); with a card
// or verb picked, its actions that need no target, and Cancel.
function drawChoices(board, actions, picked, send) {
  const box = document.getElementById("choices");
  const prompt = document.getElementById("prompt");
  prompt.textContent = board.prompt || "";
  prompt.hidden = !board.prompt;
  const buttons = [];
  if (racerPick) {
    const untargeted = picked.filter((a) => a.creep === null && a.seat === null);
    const targeted = picked.length - untargeted.length;
    if (targeted) buttons.push(el("p", { class: "note", id: "pick-hint" }, `click a glowing ${picked.some((a) => a.seat !== null) ? "seat" : "Creep"} (${targeted} possible)`));
    for (const action of untargeted) buttons.push(actionButton(action, send));
    buttons.push(el("button", { class: "secondary", id: "cancel-pick", onclick: () => { racerPick = null; rerender(); } }, "Cancel"));
  } else {
    const groups = new Map();
    for (const action of actions) {
      if (action.slot !== null) continue;
      if (!groups.has(action.group)) groups.set(action.group, []);
      groups.get(action.group).push(action);
    }
    for (const [group, list] of groups) {
      if (list.some((a) => a.creep !== null || a.seat !== null)) {
        buttons.push(el("button", { class: "verb", "data-group": group,
          onclick: () => { racerPick = group; rerender(); } }, VERB_BUTTONS[group] || group + "…"));
      } else {
        for (const action of list) buttons.push(actionButton(action, send));
      }
    }
  }
  box.replaceChildren(...buttons);
  box.hidden = !buttons.length;
}

function actionButton(action, send) {
  const danger = ["pass", "withdraw"].includes(action.group);
  return el("button", { class: "choice" + (danger ? " secondary" : ""), "data-action": action.action,
    "data-typed": action.typed, title: `type: ${action.typed}`, onclick: () => send(action) }, action.text);
}

function racerSummary(board) {
  return board.players.map((p) => `seat ${p.seat}: ${p.line.length} Creep${p.line.length === 1 ? "" : "s"}`).join(" · ");
}

registerView("racer", {
  draw: drawRacer,
  summary: racerSummary,
  escape() { const had = racerPick !== null; racerPick = null; return had; },
});
