// A game page: the board and everything the terminal shows, live over a WebSocket.
"use strict";

const GAME = location.pathname.split("/").pop();
let view = null;
let sending = false;

async function act(action) {
  if (sending) return;
  sending = true;
  showError("");
  try {
    const module = view && VIEWS[view.page.module];
    if (module && module.reset) module.reset();
    render(await api(`/api/game/${GAME}/act`, { action }));
    document.getElementById("offer-draw").checked = false;
  } catch (exc) {
    showError(exc.message);
    if (view) render(view);
  } finally {
    sending = false;
  }
}

// Leave for good, or claim the game abandoned: the node's leave / claim (node/retirement.py).
const LEAVE_WORDS = {
  leave: "Leave this game for good? The table retires your seat and plays on without you.",
  claim: "Claim this game abandoned? It ends unfinished, abandoned by the other player.",
};
let leaving = null;

function askLeave(what) {
  leaving = what;
  document.getElementById("leave-confirm-text").textContent = LEAVE_WORDS[what];
  document.getElementById("leave-confirm").hidden = false;
}

async function leave() {
  document.getElementById("leave-confirm").hidden = true;
  if (!leaving || sending) return;
  sending = true;
  showError("");
  try {
    render(await api(`/api/game/${GAME}/leave`, { what: leaving }));
  } catch (exc) {
    showError(exc.message);
  } finally {
    sending = false;
    leaving = null;
  }
}

// "Play again?" at the end (cli/web/again.py): our answer goes to the node, which opens or
// joins the rematch, or tells the others we said no; the page moves on once it has started.
async function playAgain(answer) {
  if (sending) return;
  sending = true;
  showError("");
  try {
    render(await api(`/api/game/${GAME}/again`, { answer }));
  } catch (exc) {
    showError(exc.message);
  } finally {
    sending = false;
  }
}

function showAgain(again, seats) {
  const box = document.getElementById("again");
  box.hidden = !(again && again.ask);
  if (again && again.bots) {
    const bots = seats > 2 ? "the same bots" : "the same bot";
    document.getElementById("again-text").textContent = `Play again? A new game against ${bots}.`;
  }
  const news = document.getElementById("again-news");
  const lines = again ? again.news : [];
  news.replaceChildren(...lines.map((line) => el("li", {}, line)));
  news.hidden = !lines.length;
  if (again && again.next && again.next !== GAME) location.href = withToken("/game/" + again.next);
}

function rerender() {
  if (view) render(view);
}

// What a game's view may do on a player's page (its module draws the board and the choices).
const pageUi = {
  act,
  rerender,
  offerDraw: () => document.getElementById("offer-draw").checked,
};

function render(next) {
  // A reply to our own move may arrive after a newer view from the live stream (a later event,
  // or the same events and a later change such as a peer leaving): keep the newer.
  const stale = view && next.game === view.game
    && (next.events < view.events || next.version < view.version);
  if (stale) next = view;
  view = next;
  const page = view.page;
  const words = page.words;
  document.title = `creepnet — ${view.name}`;
  document.getElementById("title").textContent = `${view.name} (${view.kind}, ${view.game.slice(0, 8)})`;
  document.getElementById("status").textContent = view.status;
  const status = document.getElementById("status");
  status.classList.toggle("mine", view.my_turn.length > 0);
  status.classList.toggle("over", view.finished || view.halted);
  document.getElementById("invite").hidden = !view.invite;
  const line = document.getElementById("invite-line");
  if (view.invite && line.value !== view.invite) line.value = view.invite;
  // The others' patience with our silence runs out (cli/patience.py): said beside what the
  // game asks of us, where we look; the face sends the view again each second it counts down.
  const ownSilence = document.getElementById("own-silence");
  ownSilence.textContent = view.own_silence || "";
  ownSilence.hidden = !view.own_silence;
  const retiring = document.getElementById("retiring");
  retiring.textContent = view.retiring || "";
  retiring.hidden = !view.retiring;
  document.getElementById("leave").hidden = !view.leave;
  document.getElementById("claim").hidden = !view.claim;
  if (!view.leave) document.getElementById("leave-confirm").hidden = true;
  document.getElementById("seats").replaceChildren(...view.seats.map(seatRow));
  const board = view.board;
  const box = document.getElementById("board");
  const over = view.finished || view.halted || view.abandoned;
  const playing = !view.spectator && !over;
  const module = VIEWS[page.module];
  if (page.module && !module) loadView(page).then(rerender).catch((exc) => showError(exc.message));
  // The game's module shows the prompt and choices it needs while it draws.
  document.getElementById("prompt").hidden = true;
  document.getElementById("choices").hidden = true;
  if (board && module) {
    module.draw(box, board, view, playing ? pageUi : null);
    document.getElementById("summary").textContent = module.summary(board);
  } else {
    const text = !view.started ? view.status
      : board ? "…" // the game's view is still loading
        : words.waiting || "this game has no board on the page yet: type your actions";
    box.replaceChildren(el("p", { class: "note waiting" }, text));
    document.getElementById("summary").textContent = "";
  }
  // What the game asks of us now: on a phone it waits at the window's foot (style.css).
  document.getElementById("now").classList.toggle("acting", playing && view.my_turn.length > 0);
  keepRoomForNow();
  const hint = document.getElementById("hint");
  hint.textContent = words.hint || "";
  hint.hidden = !(board && module && module.hint && words.hint && module.hint(board));
  document.getElementById("controls").hidden = !playing;
  document.getElementById("offer-draw-label").hidden = !page.draw_offers;
  document.getElementById("resign").hidden = !page.resign;
  const notation = document.getElementById("notation");
  notation.placeholder = words.placeholder || "type your action…";
  notation.title = notation.placeholder;
  fitPlaceholder(notation);
  document.getElementById("watching").hidden = !view.spectator;
  const offer = page.draw_offers && board && board.can_answer_draw && playing;
  document.getElementById("draw-offer").hidden = !offer;
  if (offer) {
    const by = view.seats[board.draw_offered_by];
    document.getElementById("draw-offer-text").textContent = `${by ? by.player : "your opponent"} offers a draw`;
  }
  document.getElementById("offer-draw").disabled = !view.my_turn.includes("move");
  const after = document.getElementById("after");
  after.hidden = !over;
  if (!after.hidden) {
    after.replaceChildren("The log is signed by every player: ",
      el("a", { href: withToken("/replay/" + view.game), id: "replay-link" }, "replay and verify it"), ".");
  }
  showAgain(view.again, view.seat_count);
  document.getElementById("news-title").hidden = !view.news.length;
  const news = document.getElementById("news");
  news.replaceChildren(...view.news.map((line) => el("li", {}, line)));
  fitToWholeLines(news);
  const feed = document.getElementById("feed");
  feed.replaceChildren(...view.feed.map((line) => el("li", {}, line)));
  fitToWholeLines(feed);
}

// The page's foot is kept clear for the bar of what is asked, when it is one (a phone): the
// last of the board and the panel scroll up from under it.
function keepRoomForNow() {
  const now = document.getElementById("now");
  const bar = getComputedStyle(now).position === "fixed";
  document.body.style.paddingBottom = bar ? `${now.offsetHeight}px` : "";
}
window.addEventListener("resize", keepRoomForNow);

// A game's placeholder (its examples) too long for the field beside Send gives the field a
// row of its own, Send under it: the examples are never cut off.
function fitPlaceholder(input) {
  if (!input.clientWidth) return; // hidden: measured when shown
  const style = getComputedStyle(input, "::placeholder");
  const context = (fitPlaceholder.canvas ||= document.createElement("canvas")).getContext("2d");
  context.font = `${style.fontSize} ${style.fontFamily}`;
  input.form.classList.remove("roomy"); // measured beside Send
  const inner = getComputedStyle(input);
  const room = input.clientWidth - parseFloat(inner.paddingLeft) - parseFloat(inner.paddingRight);
  input.form.classList.toggle("roomy", context.measureText(input.placeholder).width > room);
}

// A scrolled list shows its newest lines whole: the box is cut to the height of the last
// lines that fit in its limit, so the top one is never half hidden; scroll up for older ones.
const LIST_LIMIT = 180; // px, as style.css's .feed max-height
function fitToWholeLines(list) {
  list.style.maxHeight = "";
  const items = [...list.children];
  if (items.length) {
    const bottom = items[items.length - 1].getBoundingClientRect().bottom;
    let top = bottom;
    for (let k = items.length - 1; k >= 0; k--) {
      const itemTop = items[k].getBoundingClientRect().top;
      if (bottom - itemTop > LIST_LIMIT) break;
      top = itemTop;
    }
    list.style.maxHeight = `${Math.ceil(bottom - top)}px`;
  }
  list.scrollTop = list.scrollHeight;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(withToken(`${scheme}//${location.host}/ws/game/${GAME}`));
  const banner = document.getElementById("connection");
  socket.onopen = () => { banner.hidden = true; };
  socket.onmessage = (message) => render(JSON.parse(message.data));
  socket.onclose = () => {
    banner.textContent = view && (view.finished || view.halted)
      ? "your node has stopped serving this page; the game is over"
      : "lost the connection to your node; retrying…";
    banner.hidden = false;
    setTimeout(connect, 2000);
  };
}

document.getElementById("home-link").href = withToken("/");
document.getElementById("notation-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.getElementById("notation");
  const text = input.value.trim();
  if (!text) return;
  input.value = "";
  const offer = document.getElementById("offer-draw").checked && /^[a-z]\d/i.test(text);
  act(offer && !text.includes("draw") ? text + " draw" : text);
});
document.getElementById("accept-draw").addEventListener("click", () => act("accept"));
document.getElementById("decline-draw").addEventListener("click", () => act("decline"));
document.getElementById("resign").addEventListener("click", () => {
  document.getElementById("resign-confirm").hidden = false;
});
document.getElementById("resign-no").addEventListener("click", () => {
  document.getElementById("resign-confirm").hidden = true;
});
document.getElementById("resign-yes").addEventListener("click", () => {
  document.getElementById("resign-confirm").hidden = true;
  act("resign");
});
document.getElementById("invite-copy").addEventListener("click", async () => {
  const line = document.getElementById("invite-line");
  let said = "Copied";
  try {
    await navigator.clipboard.writeText(line.value);
  } catch (exc) { // no clipboard (e.g. permission): leave it selected to copy by hand
    line.select();
    said = "Selected: press Ctrl+C";
  }
  document.getElementById("invite-copy").textContent = said;
});
document.getElementById("again-yes").addEventListener("click", () => playAgain("yes"));
document.getElementById("again-no").addEventListener("click", () => playAgain("no"));
document.getElementById("leave").addEventListener("click", () => askLeave("leave"));
document.getElementById("claim").addEventListener("click", () => askLeave("claim"));
document.getElementById("leave-yes").addEventListener("click", leave);
document.getElementById("leave-no").addEventListener("click", () => {
  document.getElementById("leave-confirm").hidden = true;
  leaving = null;
});
document.addEventListener("keydown", (event) => {
  const module = view && VIEWS[view.page.module];
  if (event.key === "Escape" && module && module.escape && module.escape()) render(view);
});

api(`/api/game/${GAME}`).then(render).catch((exc) => showError(exc.message));
connect();
