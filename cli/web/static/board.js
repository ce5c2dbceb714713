// The Creeper board as SVG, drawn from the geometry the node sends (BoardSpec of the engine).
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const UNIT = 60;
const MARGIN = 34;

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

// The dark player sees the board mirrored top to bottom: their first home base (the engine's
// row 0) at the bottom left, where the light player sees theirs.
let flipped = false;

function screenRow(row, count) {
  return flipped ? count - 1 - row : row;
}

function holeXY(hole, lattice) {
  return [MARGIN + hole.col * UNIT, MARGIN + screenRow(hole.row, lattice) * UNIT];
}

function octagonPoints(cx, cy) {
  const apothem = UNIT * 0.43;
  const radius = apothem / Math.cos(Math.PI / 8);
  const points = [];
  for (let k = 0; k < 8; k++) {
    const angle = Math.PI / 8 + (k * Math.PI) / 4;
    points.push(`${(cx + radius * Math.cos(angle)).toFixed(1)},${(cy + radius * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

// board: the node's board view; ui: {selected, onPin(name), onTarget(notation)} or null;
// flip: draw it mirrored, for the dark player.
function drawBoard(container, board, ui, flip) {
  flipped = Boolean(flip);
  const geo = board.geometry;
  const side = MARGIN * 2 + (geo.lattice - 1) * UNIT;
  const root = svg("svg", { viewBox: `0 0 ${side} ${side}`, class: "board" + (flipped ? " flipped" : ""),
    role: "img", "aria-label": flipped ? "Creeper board, your home at the bottom" : "Creeper board" });
  root.append(svg("rect", { x: 4, y: 4, width: side - 8, height: side - 8, rx: 18, class: "frame" }));
  const holes = Object.fromEntries(geo.holes.map((h) => [h.name, h]));
  const last = board.last;
  for (const oct of geo.octagons) {
    const cx = MARGIN + (oct.col + 0.5) * UNIT;
    const cy = MARGIN + (screenRow(oct.row, geo.size) + 0.5) * UNIT;
    const classes = ["octagon"];
    if (oct.home) classes.push("home", oct.home);
    if (last && last.jumped === oct.name) classes.push("jumped");
    const group = svg("g", { "data-octagon": oct.name, "data-cy": cy });
    group.append(svg("polygon", { points: octagonPoints(cx, cy), class: classes.join(" ") }));
    const disc = board.discs[oct.name];
    if (disc) group.append(svg("circle", { cx, cy, r: UNIT * 0.27, class: "disc " + disc }));
    if (oct.home) {
      const label = svg("text", { x: cx, y: cy + 4, class: "home-label" });
      label.textContent = "home";
      group.append(label);
    }
    root.append(group);
  }
  for (let c = 0; c < geo.lattice; c++) {
    const x = MARGIN + c * UNIT;
    for (const y of [MARGIN / 2 - 2, side - MARGIN / 2 + 8]) {
      const label = svg("text", { x, y, class: "coord" });
      label.textContent = String.fromCharCode(97 + c);
      root.append(label);
    }
  }
  for (let r = 0; r < geo.lattice; r++) {
    const y = MARGIN + screenRow(r, geo.lattice) * UNIT + 4;
    for (const x of [MARGIN / 2 - 4, side - MARGIN / 2 + 4]) {
      const label = svg("text", { x, y, class: "coord" });
      label.textContent = String(geo.lattice - r);
      root.append(label);
    }
  }
  if (last) {
    const [x1, y1] = holeXY(holes[last.origin], geo.lattice);
    const [x2, y2] = holeXY(holes[last.target], geo.lattice);
    root.append(svg("line", { x1, y1, x2, y2, class: "last-line" }));
  }
  const legal = (ui && board.legal) || {};
  const targets = ui && ui.selected ? legal[ui.selected] || [] : [];
  const targetOf = Object.fromEntries(targets.map(([target, notation]) => [target, notation]));
  for (const hole of geo.holes) {
    const [x, y] = holeXY(hole, geo.lattice);
    const pin = board.pins[hole.name];
    const group = svg("g", { "data-hole": hole.name, class: "hole-group" });
    group.append(svg("circle", { cx: x, cy: y, r: UNIT * 0.09, class: "hole" }));
    if (last && last.origin === hole.name) {
      group.append(svg("circle", { cx: x, cy: y, r: UNIT * 0.2, class: "last-origin" }));
    }
    if (pin) {
      const classes = ["pin", pin];
      if (legal[hole.name]) classes.push("movable");
      if (ui && ui.selected === hole.name) classes.push("selected");
      if (last && last.target === hole.name) classes.push("last-target");
      const attrs = { cx: x, cy: y, r: UNIT * 0.19, class: classes.join(" "), "data-pin": pin };
      if (legal[hole.name]) attrs.onclick = () => ui.onPin(hole.name);
      group.append(svg("circle", attrs));
    }
    if (targetOf[hole.name]) {
      group.append(svg("circle", {
        cx: x, cy: y, r: UNIT * 0.2, class: "target", "data-target": hole.name,
        onclick: () => ui.onTarget(targetOf[hole.name]),
      }));
    }
    root.append(group);
  }
  container.replaceChildren(root);
}

function boardSummary(board) {
  const parts = [`ply ${board.ply}` + (board.max_plies ? ` of ${board.max_plies}` : "")];
  parts.push(`${board.to_move} to move`);
  parts.push(`discs light ${board.disc_count.light}, dark ${board.disc_count.dark}`);
  parts.push(`pins lost light ${board.captured.light}, dark ${board.captured.dark}`);
  if (board.last) parts.push(`last move ${board.last.text}`);
  return parts.join(" · ");
}

// The pin the player picked (its targets glow), until a target is clicked or Escape.
let pickedPin = null;

registerView("creeper", {
  draw(box, board, view, ui) {
    if (pickedPin && !(board.legal || {})[pickedPin]) pickedPin = null;
    const dark = !view.spectator && (board.colours || {})[String(view.you)] === "dark";
    const clicks = ui && {
      get selected() { return pickedPin; },
      onPin(hole) { pickedPin = pickedPin === hole ? null : hole; ui.rerender(); },
      onTarget(notation) { ui.act(ui.offerDraw() ? notation + " draw" : notation); },
    };
    drawBoard(box, board, clicks, dark);
  },
  summary: boardSummary,
  hint: (board) => Object.keys(board.legal || {}).length > 0,
  escape() { const had = pickedPin !== null; pickedPin = null; return had; },
  reset() { pickedPin = null; },
});
