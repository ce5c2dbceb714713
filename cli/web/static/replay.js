// The replay viewer: every event of a log with the position after it, and the verifier's verdict.
"use strict";

const WHICH = location.pathname.split("/").pop();
let replay = null;
let index = 0;
let timer = null;

function show(at) {
  const frames = replay.frames;
  if (!frames.length) return;
  index = Math.max(0, Math.min(frames.length - 1, at));
  const frame = frames[index];
  document.getElementById("slider").value = String(index);
  document.getElementById("position").textContent = `event ${index + 1} of ${frames.length}`;
  document.getElementById("event").textContent = frame.text;
  const box = document.getElementById("board");
  const board = frame.board === null ? null : replay.boards[frame.board];
  const module = VIEWS[replay.page.module];
  if (board && module) {
    module.draw(box, board, { seats: replay.seats, you: null, spectator: true }, null);
    document.getElementById("summary").textContent = [module.summary(board), frame.status].join(" · ");
  } else {
    box.replaceChildren(el("p", { class: "note waiting" }, "(the game has not started yet)"));
    document.getElementById("summary").textContent = frame.status;
  }
  for (const item of document.querySelectorAll("#events li")) {
    item.classList.toggle("current", Number(item.dataset.index) === index);
  }
  const current = document.querySelector("#events li.current");
  if (current) current.scrollIntoView({ block: "nearest" });
}

function toggle() {
  const button = document.getElementById("play");
  if (timer) {
    clearInterval(timer);
    timer = null;
    button.textContent = "▶︎ play";
    return;
  }
  if (index >= replay.frames.length - 1) show(0);
  button.textContent = "⏸ pause";
  timer = setInterval(() => {
    if (index >= replay.frames.length - 1) toggle();
    else show(index + 1);
  }, 600);
}

function render(data) {
  replay = data;
  document.getElementById("title").textContent = data.name ? `${data.name} (${data.kind})` : "";
  const verdict = document.getElementById("verdict");
  verdict.textContent = data.verdict.text;
  verdict.classList.toggle("valid", data.verdict.valid);
  verdict.classList.toggle("invalid", !data.verdict.valid);
  document.getElementById("seats").replaceChildren(...data.seats.map(seatRow));
  document.getElementById("slider").max = String(Math.max(0, data.frames.length - 1));
  document.getElementById("events").replaceChildren(...data.frames.map((frame, i) =>
    el("li", { "data-index": i, onclick: () => show(i) }, frame.text)));
  show(data.frames.length - 1);
}

document.getElementById("home-link").href = withToken("/");
document.getElementById("slider").addEventListener("input", (e) => show(Number(e.target.value)));
document.getElementById("first").addEventListener("click", () => show(0));
document.getElementById("prev").addEventListener("click", () => show(index - 1));
document.getElementById("next").addEventListener("click", () => show(index + 1));
document.getElementById("last").addEventListener("click", () => show(replay.frames.length - 1));
document.getElementById("play").addEventListener("click", toggle);
document.addEventListener("keydown", (event) => {
  if (!replay || event.target.tagName === "INPUT" && event.target.type !== "range") return;
  const moves = { ArrowLeft: -1, ArrowRight: 1 };
  if (event.key in moves) { event.preventDefault(); show(index + moves[event.key]); }
  else if (event.key === "Home") show(0);
  else if (event.key === "End") show(replay.frames.length - 1);
  else if (event.key === " ") { event.preventDefault(); toggle(); }
});

api(`/api/replay/${WHICH}`)
  .then(async (data) => { await loadView(data.page); render(data); })
  .catch((exc) => showError(exc.message));
