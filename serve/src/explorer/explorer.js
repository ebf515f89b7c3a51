// The egdb explorer: draws a position from the JSON API, lists its moves
// best first, and plays them by click. It knows no rules: a move's cells
// are those where the position it leads to differs from this one.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
let board = null; // the store's board, from /api/v1/info (null: none)
let current = null; // the moves reply of the position shown
let selection = []; // cells clicked towards a move
let editing = null; // the position being set up in edit mode: { cells }

async function api(route, params) {
  const query = new URLSearchParams(params || {}).toString();
  const reply = await fetch(`/api/v1/${route}${query ? "?" + query : ""}`);
  let body;
  try {
    body = await reply.json();
  } catch (e) {
    throw new Error(`HTTP ${reply.status}: not a JSON reply`);
  }
  if (!reply.ok) throw new Error(body.error || `HTTP ${reply.status}`);
  return body;
}

function showError(text) {
  const error = $("error");
  error.textContent = text || "";
  error.hidden = !text;
}

// The occupant of each cell of a position: "B", "W", "." (Morris) or
// "o", "." (take-away games); null for games without a board.
function cellsOf(position) {
  if (!board) return null;
  if (board.kind === "morris") return position.split(" ")[0].split("");
  if (board.kind === "triangle") return position.split("/").join("").split("");
  if (board.kind === "cells" && board.encoding === "mask") {
    const mask = Number(position);
    return board.cells.map((_, i) => (Math.floor(mask / 2 ** i) % 2 ? "o" : "."));
  }
  if (board.kind === "cells") return position.split("");
  return null;
}

// The notation of cells set up in edit mode (Morris: with the side to move
// and the hands of the editor's fields). The server checks it.
function positionOf(cells) {
  if (board.kind === "morris") {
    const side = $("edit-side").value;
    return `${cells.join("")} ${side} ${$("edit-black").value} ${$("edit-white").value}`;
  }
  if (board.kind === "triangle") {
    const rows = [];
    for (let r = 0, i = 0; r < board.layers; i += r + 1, r++) rows.push(cells.slice(i, i + r + 1).join(""));
    return rows.join("/");
  }
  if (board.encoding === "mask") return String(cells.reduce((sum, c, i) => sum + (c === "o" ? 2 ** i : 0), 0));
  return cells.join("");
}

function changedCells(move) {
  const before = cellsOf(current.position);
  const after = cellsOf(move.after);
  if (!before || !after) return [];
  return before.map((c, i) => (c !== after[i] ? i : -1)).filter((i) => i >= 0);
}

// What a move's result means for the side that makes it.
function forMover(value, depth) {
  const plies = depth === null || depth === undefined ? "" : ` in ${depth}`;
  if (value === "draw") return { text: "draw", cls: "draw", depth: 0 };
  return { text: `${value}${plies}`, cls: value, depth: depth || 0 };
}

function moveResult(move) {
  const next = move.depth === null ? null : move.depth + 1;
  if (move.value === "loss") return forMover("win", next);
  if (move.value === "win") return forMover("loss", next);
  return forMover("draw", null);
}

function element(name, attributes) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

function cellNode(x, y, radius, cls, index) {
  const node = element("circle", { cx: x, cy: y, r: radius, class: cls });
  node.dataset.cell = index;
  node.addEventListener("click", () => clickCell(index));
  return node;
}

// The Morris board with its coordinates (files a–g below, ranks 1–7 at
// the left) and each side's pieces in hand: White's above, Black's below.
function drawMorris(svg, cells, hands) {
  const at = (name) => [name.charCodeAt(0) - 97, 55 - name.charCodeAt(1)];
  svg.setAttribute("viewBox", "-1.1 -1.6 8.2 9.6");
  for (const [a, b] of board.edges) {
    const [x1, y1] = at(a);
    const [x2, y2] = at(b);
    svg.appendChild(element("line", { x1, y1, x2, y2, class: "edge" }));
  }
  for (let i = 0; i < 7; i++) {
    svg.appendChild(element("text", { x: i, y: 6.8, class: "coordinate file" })).textContent = String.fromCharCode(97 + i);
    svg.appendChild(element("text", { x: -0.75, y: 6 - i + 0.12, class: "coordinate rank" })).textContent = String(i + 1);
  }
  board.points.forEach((name, i) => {
    const [x, y] = at(name);
    const piece = cells[i] === "B" || cells[i] === "W";
    const node = cellNode(x, y, piece ? 0.32 : 0.13, piece ? `piece ${cells[i]}` : "point", i);
    node.appendChild(element("title", {})).textContent = name;
    svg.appendChild(node);
  });
  if (!hands) return;
  for (const [side, count, y] of [["W", hands.white, -1.1], ["B", hands.black, 7.5]]) {
    for (let k = 0; k < count; k++) {
      svg.appendChild(element("circle", { cx: k * 0.52, cy: y, r: 0.22, class: `hand ${side}` }));
    }
  }
}

// Each side's pieces in hand in the position drawn (in edit mode, the
// editor's fields); null where the game has no hands.
function handsOf() {
  if (board.kind !== "morris") return null;
  const [black, white] = editing
    ? [$("edit-black").value, $("edit-white").value]
    : current.position.split(" ").slice(2, 4);
  const count = (text) => Math.max(0, Math.min(24, Number(text) || 0));
  return { black: count(black), white: count(white) };
}

// A Morris move's cells in the order they are clicked: the piece moved
// (none for a placement), where it lands, what it takes; `before` is the
// position shown, as cells, and `mover` the colour that moves.
function clickOrder(move, before, mover) {
  const after = cellsOf(move.after);
  const from = [];
  const to = [];
  const taken = [];
  before.forEach((c, i) => {
    if (c === after[i]) return;
    if (c === mover) from.push(i);
    else if (after[i] === mover) to.push(i);
    else taken.push(i);
  });
  return from.concat(to, taken);
}

// Orders results for the mover: the quickest win, then draws, then the
// slowest loss.
function rank(result) {
  if (result.cls === "win") return [0, result.depth];
  if (result.cls === "draw") return [1, 0];
  return [2, -result.depth];
}

function better(a, b) {
  const [x, y] = [rank(a), rank(b)];
  return x[0] < y[0] || (x[0] === y[0] && x[1] < y[1]);
}

// On a Morris board, the cell each move needs clicked next gets the best
// result it leads to (its colour, and the text in its title), and a
// selected piece an arrow to each point it may go to.
function markResults(svg) {
  if (board.kind !== "morris" || editing || !current) return;
  const best = new Map();
  const before = cellsOf(current.position);
  const mover = current.position.split(" ")[1] === "b" ? "B" : "W";
  for (const move of candidatesOf(selection)) {
    const next = clickOrder(move, before, mover).find((c) => !selection.includes(c));
    if (next === undefined) continue;
    const result = moveResult(move);
    if (!best.has(next) || better(result, best.get(next))) best.set(next, result);
  }
  const nodes = new Map([...svg.querySelectorAll("circle[data-cell]")].map((n) => [Number(n.dataset.cell), n]));
  const moved = selection.length === 1 && before[selection[0]] !== "." ? nodes.get(selection[0]) : null;
  for (const [cell, result] of best) {
    const node = nodes.get(cell);
    node.dataset.result = result.text;
    node.classList.add(`result-${result.cls}`);
    if (node.classList.contains("point")) node.setAttribute("r", 0.2);
    const title = node.querySelector("title");
    title.textContent = `${title.textContent}: ${result.text}`;
    if (moved && node !== moved) arrow(svg, moved, node, cell, result.cls);
  }
}

// An arrow from the piece `from` towards the point `to` (cell `cell`), in
// the colour of its result, drawn beneath the pieces.
function arrow(svg, from, to, cell, cls) {
  const [x1, y1, x2, y2] = [from.cx, from.cy, to.cx, to.cy].map((v) => v.baseVal.value);
  const length = Math.hypot(x2 - x1, y2 - y1);
  const [ux, uy] = [(x2 - x1) / length, (y2 - y1) / length];
  const [tipX, tipY] = [x2 - ux * 0.24, y2 - uy * 0.24];
  const [baseX, baseY] = [tipX - ux * 0.26, tipY - uy * 0.26];
  const line = element("line", {
    x1: x1 + ux * 0.36,
    y1: y1 + uy * 0.36,
    x2: baseX,
    y2: baseY,
    class: `arrow result-${cls}`,
  });
  line.dataset.to = cell;
  const corners = [
    [tipX, tipY],
    [baseX - uy * 0.14, baseY + ux * 0.14],
    [baseX + uy * 0.14, baseY - ux * 0.14],
  ];
  const head = element("polygon", { points: corners.map((c) => c.join(",")).join(" "), class: `head result-${cls}` });
  svg.insertBefore(line, from);
  svg.insertBefore(head, from);
}

function drawTriangle(svg, cells) {
  const n = board.layers;
  svg.setAttribute("viewBox", `-0.6 -0.6 ${n + 0.2} ${n * 0.87 + 0.3}`);
  let i = 0;
  for (let r = 0; r < n; r++) {
    for (let c = 0; c <= r; c++) {
      const x = c - r / 2 + (n - 1) / 2;
      const y = r * 0.87;
      const name = `${String.fromCharCode(97 + r)}${c + 1}`;
      const node = cellNode(x, y, 0.38, cells[i] === "o" ? "stone" : "hole", i);
      node.appendChild(element("title", {})).textContent = name;
      svg.appendChild(node);
      i++;
    }
  }
}

function drawCells(svg, cells) {
  const xs = board.cells.map((c) => c.x);
  const ys = board.cells.map((c) => c.y);
  const [left, top] = [Math.min(...xs) - 0.6, Math.min(...ys) - 0.6];
  const [width, height] = [Math.max(...xs) - left + 0.6, Math.max(...ys) - top + 0.6];
  svg.setAttribute("viewBox", `${left} ${top} ${width} ${height}`);
  for (const [a, b] of board.edges) {
    const [p, q] = [board.cells[a], board.cells[b]];
    svg.appendChild(element("line", { x1: p.x, y1: p.y, x2: q.x, y2: q.y, class: "edge" }));
  }
  board.cells.forEach((cell, i) => {
    const node = cellNode(cell.x, cell.y, 0.3, cells[i] === "o" ? "stone" : "hole", i);
    node.appendChild(element("title", {})).textContent = cell.name;
    svg.appendChild(node);
  });
}

function drawBoard() {
  const holder = $("board");
  holder.textContent = "";
  const cells = editing ? editing.cells : cellsOf(current.position);
  if (!cells) return;
  const svg = element("svg", { role: "img" });
  if (board.kind === "morris") drawMorris(svg, cells, handsOf());
  else if (board.kind === "triangle") drawTriangle(svg, cells);
  else drawCells(svg, cells);
  const candidates = candidatesOf(selection);
  const targets = new Set();
  if (selection.length) candidates.forEach((m) => changedCells(m).forEach((c) => targets.add(c)));
  for (const node of svg.querySelectorAll("circle[data-cell]")) {
    const cell = Number(node.dataset.cell);
    if (selection.includes(cell)) node.classList.add("selected");
    else if (targets.has(cell)) node.classList.add("target");
  }
  markResults(svg);
  holder.appendChild(svg);
}

function describeStatus() {
  if (!board || board.kind !== "morris") return "";
  const [, side, black, white] = current.position.split(" ");
  const mover = side === "b" ? "Black" : "White";
  return `${mover} to move; in hand: Black ${black}, White ${white}`;
}

function candidatesOf(cells) {
  return current.moves.filter((m) => {
    const changed = changedCells(m);
    return cells.every((c) => changed.includes(c));
  });
}

function exactMove(cells) {
  return current.moves.find((m) => {
    const changed = changedCells(m);
    return changed.length === cells.length && cells.every((c) => changed.includes(c));
  });
}

// In edit mode a click cycles the cell: empty, Black, White (Morris) or
// stone, hole (take-away games).
function editCell(cell) {
  const cycle = board.kind === "morris" ? [".", "B", "W"] : ["o", "."];
  const now = cycle.indexOf(editing.cells[cell]);
  editing.cells[cell] = cycle[(now + 1) % cycle.length];
  $("notation").value = positionOf(editing.cells);
  drawBoard();
}

function clickCell(cell) {
  if (editing) return editCell(cell);
  if (!current) return;
  selection = selection.includes(cell) ? selection.filter((c) => c !== cell) : selection.concat([cell]);
  if (candidatesOf(selection).length === 0) selection = candidatesOf([cell]).length ? [cell] : [];
  const candidates = candidatesOf(selection);
  if (selection.length && candidates.length === 1) {
    play(candidates[0]);
    return;
  }
  $("play").hidden = !(selection.length && exactMove(selection));
  drawBoard();
}

function listMoves() {
  const body = $("moves").querySelector("tbody");
  body.textContent = "";
  for (const move of current.moves) {
    const row = document.createElement("tr");
    const result = moveResult(move);
    const name = document.createElement("td");
    name.textContent = move.move;
    const value = document.createElement("td");
    value.textContent = result.text;
    value.className = result.cls;
    row.append(name, value);
    row.dataset.move = move.move;
    row.addEventListener("click", () => play(move));
    body.appendChild(row);
  }
  const own = forMover(current.value, current.depth);
  const header = $("value");
  header.textContent = current.moves.length ? own.text : `game over: ${own.text}`;
  header.className = own.cls;
}

// Shows `position` (a new history entry if `push`); a perfect-play line
// being stepped through stays listed with `keepSteps`.
async function show(position, push, keepSteps) {
  let reply;
  try {
    reply = await api("moves", { position });
  } catch (e) {
    showError(e.message);
    $("notation").value = position;
    return false;
  }
  showError("");
  current = reply;
  selection = [];
  $("play").hidden = true;
  if (!keepSteps) $("steps").textContent = "";
  $("notation").value = reply.position;
  $("status").textContent = describeStatus();
  // The URL names the position as the server writes it ("start" too).
  const url = `?position=${encodeURIComponent(reply.position)}`;
  if (push) history.pushState({ position: reply.position }, "", url);
  else history.replaceState({ position: reply.position }, "", url);
  drawBoard();
  listMoves();
  return true;
}

function startEditing() {
  if (!current || !board) return;
  editing = { cells: cellsOf(current.position).slice() };
  if (board.kind === "morris") {
    const [, side, black, white] = current.position.split(" ");
    $("edit-side").value = side;
    $("edit-black").value = black;
    $("edit-white").value = white;
  }
  $("editor").hidden = false;
  $("edit-morris").hidden = board.kind !== "morris";
  $("controls").hidden = true;
  drawBoard();
}

function stopEditing() {
  editing = null;
  $("editor").hidden = true;
  $("controls").hidden = false;
  showError("");
  if (current) $("notation").value = current.position;
  drawBoard();
}

// The set-up position, shown if the server takes it; if not, its error
// shows and editing goes on.
async function finishEditing() {
  const cells = editing.cells;
  editing = null;
  if (await show(positionOf(cells), true)) return stopEditing();
  editing = { cells };
  drawBoard();
}

function showSlices(info) {
  if (info.complete) return;
  const building = $("building");
  building.hidden = false;
  const planned = info.built.length + info.missing.length;
  $("building-count").textContent = `still being built: ${info.built.length} of ${planned} slices in`;
  const list = $("slice-list");
  for (const [ids, cls] of [[info.built, "built"], [info.missing, "missing"]]) {
    for (const id of ids) {
      const item = document.createElement("li");
      item.textContent = id;
      item.className = cls;
      list.appendChild(item);
    }
  }
}

function play(move) {
  show(move.after, true);
}

async function showLine() {
  try {
    const line = await api("line", { position: current.position, max_plies: 300 });
    const list = $("steps");
    list.textContent = "";
    for (const step of line.steps) {
      const item = document.createElement("li");
      item.textContent = `${step.move}  →  ${step.position}`;
      item.addEventListener("click", async () => {
        if (!(await show(step.position, true, true))) return;
        for (const other of list.children) other.classList.toggle("current", other === item);
      });
      list.appendChild(item);
    }
  } catch (e) {
    showError(e.message);
  }
}

async function start() {
  $("goto").addEventListener("submit", (event) => {
    event.preventDefault();
    show($("notation").value.trim(), true);
  });
  $("undo").addEventListener("click", () => history.back());
  $("redo").addEventListener("click", () => history.forward());
  $("best").addEventListener("click", () => current && current.moves.length && play(current.moves[0]));
  $("line").addEventListener("click", () => current && showLine());
  $("edit").addEventListener("click", startEditing);
  $("edit-done").addEventListener("click", finishEditing);
  $("edit-cancel").addEventListener("click", stopEditing);
  $("edit-clear").addEventListener("click", () => {
    editing.cells = editing.cells.map(() => ".");
    $("notation").value = positionOf(editing.cells);
    drawBoard();
  });
  for (const field of ["edit-side", "edit-black", "edit-white"]) {
    $(field).addEventListener("change", () => {
      $("notation").value = positionOf(editing.cells);
      drawBoard();
    });
  }
  $("play").addEventListener("click", () => {
    const move = exactMove(selection);
    if (move) play(move);
  });
  window.addEventListener("popstate", () => show(positionInUrl(), false));
  try {
    const info = await api("info");
    board = info.board;
    $("game").textContent = `${info.game}, ${info.positions.toLocaleString()} positions`;
    showSlices(info);
    $("edit").hidden = !board;
  } catch (e) {
    showError(e.message);
    return;
  }
  const first = positionInUrl();
  history.replaceState({ position: first }, "", `?position=${encodeURIComponent(first)}`);
  show(first, false);
}

function positionInUrl() {
  return new URLSearchParams(location.search).get("position") || "start";
}

start();
