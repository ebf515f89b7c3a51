// The egdb explorer: draws a position from the JSON API, lists its moves
// best first, and plays them by click. It knows no rules: a move's cells
// are those where the position it leads to differs from this one.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
let board = null; // the store's board, from /api/v1/info (null: none)
let current = null; // the moves reply of the position shown
let selection = []; // cells clicked towards a move

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
// "o", "." (triangle); null for games without a board.
function cellsOf(position) {
  if (!board) return null;
  if (board.kind === "morris") return position.split(" ")[0].split("");
  if (board.kind === "triangle") return position.split("/").join("").split("");
  return null;
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
  if (value === "draw") return { text: "draw", cls: "draw" };
  return { text: `${value}${plies}`, cls: value };
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

function drawMorris(svg, cells) {
  const at = (name) => [name.charCodeAt(0) - 97, 55 - name.charCodeAt(1)];
  svg.setAttribute("viewBox", "-0.7 -0.7 7.4 7.4");
  for (const [a, b] of board.edges) {
    const [x1, y1] = at(a);
    const [x2, y2] = at(b);
    svg.appendChild(element("line", { x1, y1, x2, y2, class: "edge" }));
  }
  board.points.forEach((name, i) => {
    const [x, y] = at(name);
    const piece = cells[i] === "B" || cells[i] === "W";
    const node = cellNode(x, y, piece ? 0.32 : 0.13, piece ? `piece ${cells[i]}` : "point", i);
    node.appendChild(element("title", {})).textContent = name;
    svg.appendChild(node);
  });
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

function drawBoard() {
  const holder = $("board");
  holder.textContent = "";
  const cells = cellsOf(current.position);
  if (!cells) return;
  const svg = element("svg", { role: "img" });
  if (board.kind === "morris") drawMorris(svg, cells);
  else drawTriangle(svg, cells);
  const candidates = candidatesOf(selection);
  const targets = new Set();
  if (selection.length) candidates.forEach((m) => changedCells(m).forEach((c) => targets.add(c)));
  for (const node of svg.querySelectorAll("circle")) {
    const cell = Number(node.dataset.cell);
    if (selection.includes(cell)) node.classList.add("selected");
    else if (targets.has(cell)) node.classList.add("target");
  }
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

function clickCell(cell) {
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

async function show(position, push) {
  let reply;
  try {
    reply = await api("moves", { position });
  } catch (e) {
    showError(e.message);
    $("notation").value = position;
    return;
  }
  showError("");
  current = reply;
  selection = [];
  $("play").hidden = true;
  $("steps").textContent = "";
  $("notation").value = reply.position;
  $("status").textContent = describeStatus();
  if (push) history.pushState({ position: reply.position }, "", `?position=${encodeURIComponent(reply.position)}`);
  drawBoard();
  listMoves();
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
      item.addEventListener("click", () => show(step.position, true));
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
  $("play").addEventListener("click", () => {
    const move = exactMove(selection);
    if (move) play(move);
  });
  window.addEventListener("popstate", () => show(positionInUrl(), false));
  try {
    const info = await api("info");
    board = info.board;
    $("game").textContent = `${info.game}, ${info.positions.toLocaleString()} positions`;
    if (!info.complete) {
      const building = $("building");
      building.hidden = false;
      building.textContent = `still being built: ${info.slices} slices so far`;
    }
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
