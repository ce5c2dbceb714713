// The replay viewer: a log's story step by step (a seat's move, or a step the table takes) and
// turn by turn, in the words the live page uses, with the position after each step and the
// verifier's verdict.  Deck work and randomness are folded into the move they serve.
"use strict";

const WHICH = location.pathname.split("/").pop();
let replay = null;
let index = 0;
let timer = null;

function show(at) {
  const steps = replay.steps;
  if (!steps.length) return;
  index = Math.max(0, Math.min(steps.length - 1, at));
  const step = steps[index];
  const turn = replay.turns[step.turn];
  document.getElementById("slider").value = String(index);
  document.getElementById("position").textContent = `step ${index + 1} of ${steps.length}`;
  document.getElementById("turn-title").textContent = turn.title;
  document.getElementById("event").textContent = step.text;
  document.getElementById("work").textContent = step.work.length ? `with: ${step.work.join("; ")}` : "";
  const box = document.getElementById("board");
  const board = step.board === null ? null : replay.boards[step.board];
  const module = VIEWS[replay.page.module];
  if (board && module) {
    module.draw(box, board, { seats: replay.seats, you: null, spectator: true }, null);
    document.getElementById("summary").textContent = [module.summary(board), step.status].join(" · ");
  } else {
    box.replaceChildren(el("p", { class: "note waiting" }, "(the game has not started yet)"));
    document.getElementById("summary").textContent = step.status;
  }
  for (const item of document.querySelectorAll("#events li[data-index]")) {
    item.classList.toggle("current", Number(item.dataset.index) === index);
  }
  const current = document.querySelector("#events li.current");
  if (current) current.scrollIntoView({ block: "nearest" });
}

// The first step of the turn ``by`` turns away from the current step's (-1: the turn before;
// from the middle of a turn, -1 goes back to its own first step first).
function turnStep(by) {
  const turns = replay.turns;
  let turn = replay.steps[index].turn;
  if (by < 0 && turns[turn].steps[0] !== index) return turns[turn].steps[0];
  do { turn += by; } while (turn >= 0 && turn < turns.length && !turns[turn].steps.length);
  if (turn < 0) return 0;
  if (turn >= turns.length) return replay.steps.length - 1;
  return turns[turn].steps[0];
}

function toggle() {
  const button = document.getElementById("play");
  if (timer) {
    clearInterval(timer);
    timer = null;
    button.textContent = "▶︎ play";
    return;
  }
  if (index >= replay.steps.length - 1) show(0);
  button.textContent = "⏸ pause";
  timer = setInterval(() => {
    if (index >= replay.steps.length - 1) toggle();
    else show(index + 1);
  }, 600);
}

function stepItem(step, i) {
  const item = el("li", { "data-index": i, onclick: () => show(i) }, step.text);
  if (step.work.length) item.append(el("small", { class: "work" }, `with: ${step.work.join("; ")}`));
  return item;
}

function render(data) {
  replay = data;
  document.getElementById("title").textContent = data.name ? `${data.name} (${data.kind})` : "";
  const verdict = document.getElementById("verdict");
  verdict.textContent = data.verdict.text;
  verdict.classList.toggle("valid", data.verdict.valid);
  verdict.classList.toggle("invalid", !data.verdict.valid);
  document.getElementById("seats").replaceChildren(...data.seats.map(seatRow));
  document.getElementById("slider").max = String(Math.max(0, data.steps.length - 1));
  const items = [];
  for (const turn of data.turns) {
    if (!turn.steps.length) continue;
    const first = turn.steps[0];
    // A heading over a single step (a Creeper move is a turn) adds nothing: the panel names it.
    if (turn.steps.length > 1) {
      items.push(el("li", { class: "turn-head", onclick: () => show(first) }, turn.title));
    }
    for (const i of turn.steps) items.push(stepItem(data.steps[i], i));
  }
  document.getElementById("events").replaceChildren(...items);
  show(data.steps.length - 1);
}

document.getElementById("home-link").href = withToken("/");
document.getElementById("slider").addEventListener("input", (e) => show(Number(e.target.value)));
document.getElementById("first").addEventListener("click", () => show(0));
document.getElementById("prev-turn").addEventListener("click", () => show(turnStep(-1)));
document.getElementById("prev").addEventListener("click", () => show(index - 1));
document.getElementById("next").addEventListener("click", () => show(index + 1));
document.getElementById("next-turn").addEventListener("click", () => show(turnStep(1)));
document.getElementById("last").addEventListener("click", () => show(replay.steps.length - 1));
document.getElementById("play").addEventListener("click", toggle);
document.addEventListener("keydown", (event) => {
  if (!replay || event.target.tagName === "INPUT" && event.target.type !== "range") return;
  const moves = { ArrowLeft: -1, ArrowRight: 1 };
  const turns = { PageUp: -1, PageDown: 1, ArrowUp: -1, ArrowDown: 1 };
  if (event.key in moves && event.shiftKey) { event.preventDefault(); show(turnStep(moves[event.key])); }
  else if (event.key in moves) { event.preventDefault(); show(index + moves[event.key]); }
  else if (event.key in turns) { event.preventDefault(); show(turnStep(turns[event.key])); }
  else if (event.key === "Home") show(0);
  else if (event.key === "End") show(replay.steps.length - 1);
  else if (event.key === " ") { event.preventDefault(); toggle(); }
});

api(`/api/replay/${WHICH}`)
  .then(async (data) => { await loadView(data.page); render(data); })
  .catch((exc) => showError(exc.message));
