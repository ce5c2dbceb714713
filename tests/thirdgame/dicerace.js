// The dice race's track on the page: a test-only game, served from its own folder by its record.
"use strict";

registerView("dicerace", {
  draw(box, board, view, ui) {
    const rows = board.track.map((place, seat) => el("li", { "data-runner": seat },
      `${view.seats[seat] ? view.seats[seat].player : "seat " + seat}: ${place} of ${board.goal}`));
    const parts = [el("ol", { class: "dice-track", id: "track" }, ...rows)];
    if (ui && board.can_roll) parts.push(el("button", { id: "roll", onclick: () => ui.act("roll") }, "Roll"));
    box.replaceChildren(el("div", { class: "dicerace" }, ...parts));
  },
  summary: (board) => board.last ? `seat ${board.last.seat} rolled ${board.last.value}` : "no roll yet",
  hint: (board) => board.can_roll,
});
