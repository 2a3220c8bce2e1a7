// The sparring play page: draws the server's view of the game and sends the person's clicks as moves.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const CELL = 60;
const MARGIN = 22;  // room for the coordinates: left of the rows, above the columns
const COLOURS = {  // per game: board, and the pieces of player 0 and player 1, with their names
  connect4: { board: "#1565c0", empty: "#ffffff", pieces: ["#e53935", "#fdd835"], names: ["red", "yellow"] },
  othello: { board: "#2e7d32", pieces: ["#212121", "#fafafa"], names: ["black", "white"] },
  othello6: { board: "#2e7d32", pieces: ["#212121", "#fafafa"], names: ["black", "white"] },
  breakthrough: { squares: ["#eeeed2", "#769656"], pieces: ["#212121", "#fafafa"], names: ["black", "white"] },
  knightthrough: { squares: ["#eeeed2", "#769656"], pieces: ["#fafafa", "#212121"], names: ["white", "black"] },
  pentago: { board: "#a1887f", empty: "#d7ccc8", pieces: ["#212121", "#fafafa"], names: ["black", "white"] },
  pentago_ggp: { board: "#a1887f", empty: "#d7ccc8", pieces: ["#212121", "#fafafa"], names: ["black", "white"] },
  go9: { board: "#deb887", pieces: ["#212121", "#fafafa"], names: ["black", "white"] },
  connect5: { board: "#deb887", pieces: ["#212121", "#fafafa"], names: ["black", "white"] },
  tictactoe3d: { board: "#eceff1", pieces: ["#e53935", "#1e88e5"], names: ["red", "blue"] },
  sheepandwolf: { squares: ["#eeeed2", "#769656"], pieces: ["#5d4037", "#fafafa"], names: ["the wolf", "the sheep"] },
};
const LIGHT = "#fafafa";  // the light pieces, outlined in grey
// The games whose move takes a piece from one square to another (two clicks), and how their pieces move
const STEPS = {
  breakthrough: "a piece moves one row forward, straight onto an empty square or diagonally, and captures only " +
    "diagonally.",
  knightthrough: "a knight jumps forward, two rows and one column or one row and two columns, onto an empty " +
    "square or an opposing knight, which it captures.",
  sheepandwolf: "a piece steps one square diagonally onto an empty square: the wolf either way, a sheep only up " +
    "the board.",
};
// Pentago: a move's last letter names the quadrant that turns and which way (games/pentago.py)
const TURNS = { s: "top-left, anticlockwise", t: "top-left, clockwise", u: "top-right, anticlockwise",
  v: "top-right, clockwise", w: "bottom-right, anticlockwise", x: "bottom-right, clockwise",
  y: "bottom-left, anticlockwise", z: "bottom-left, clockwise" };
const PLAYERS = ["the first player", "the second player"];  // a game without a board of pieces: who is who
let options = null;
let view = null;
let selected = null;  // a game of STEPS: the square of the piece chosen to move; Pentago: the marble's square
let busy = false;

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

async function request(path, body, waiting) {
  if (busy) return null;
  busy = true;
  $("error").textContent = "";
  if (waiting) $("status").textContent = waiting;
  try {
    const data = await api(path, body);
    view = data;
    selected = null;
    draw();
    return data;
  } catch (error) {
    $("error").textContent = error.message;
    if (view) draw();
    return null;
  } finally {
    busy = false;
  }
}

function node(name, attributes, parent) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (parent) parent.appendChild(element);
  return element;
}

const same = (a, b) => a && b && a[0] === b[0] && a[1] === b[1];

function movesAt(row, col) {
  // The person's legal moves that a click on (row, col) means.
  if (view.game === "connect4") return view.legal.filter((m) => m.to[1] === col);
  if (STEPS[view.game]) {
    return selected ? view.legal.filter((m) => same(m.from, selected) && same(m.to, [row, col])) : [];
  }
  return view.legal.filter((m) => same(m.to, [row, col]));
}

const passMove = () => view.legal.find((m) => m.to === null && m.text === "pass");

// pentago_ggp's second move: the marble is down and a quadrant turns (buttons below the board)
const turning = () => view.game === "pentago_ggp" && view.human_to_move && view.legal.every((m) => m.to === null);

function squareName(row, col) {
  const { rows, cols } = view.coordinates;
  return cols[col] + (rows ? rows[row] : "");
}

function refusal(row, col) {
  // Why a click on (row, col) plays nothing, in a line (null: it does something else).
  if (view.over) return "The game is over: start a new game to play again.";
  if (!view.human_to_move) return "Wait: it is the opponent's move.";
  const name = squareName(row, col);
  if (view.game === "connect4") return `Column ${name} is full: choose another.`;
  if (turning()) return "Now choose which quadrant turns, below the board.";
  if (view.legal.length === 1 && view.legal[0].to === null) return "You have no move: press Pass.";
  if (STEPS[view.game]) {
    if (view.legal.some((m) => same(m.from, [row, col]))) return null;  // one of the person's pieces: select it
    if (view.board[row][col] === view.human + 1) return "That piece has no move: choose another.";
    if (!selected) return "Click one of your pieces that can move first (they are outlined), then where it goes.";
    return `That piece cannot go to ${name}: ${STEPS[view.game]}`;
  }
  if (view.board[row][col]) return `${name} is taken.`;
  return `${name} is not a legal move: a move must turn over at least one disc (the legal ones are marked).`;
}

function click(row, col) {
  if (!view || busy) return;
  const moves = view.human_to_move ? movesAt(row, col) : [];
  if (moves.length > 1) {  // Pentago: the marble's square, then which quadrant turns (buttons below the board)
    selected = same(selected, [row, col]) ? null : [row, col];
    $("error").textContent = "";
    draw();
    return;
  }
  const why = moves.length === 1 ? null : refusal(row, col);
  $("error").textContent = why || "";
  if (moves.length === 1) {
    request("/api/move", { move: moves[0].action }, "Thinking...");
  } else if (STEPS[view.game] && !why) {
    selected = same(selected, [row, col]) ? null : [row, col];
    draw();
  } else if (STEPS[view.game]) {
    selected = null;
    draw();
    $("error").textContent = why;
  }
}

function drawText() {
  // A game with no board of pieces (one from outside sparring): its own text, and a button per legal move.
  const text = document.createElement("pre");
  text.className = "position";
  text.textContent = view.text;
  const moves = document.createElement("div");
  moves.className = "choices";
  for (const m of view.legal) {
    const button = document.createElement("button");
    button.textContent = m.text;
    button.className = "choice";
    button.addEventListener("click", () => { if (!busy) request("/api/move", { move: m.action }, "Thinking..."); });
    moves.appendChild(button);
  }
  $("board").replaceChildren(text, moves);
}

function drawBoard() {
  if (view.board === null) return drawText();
  const { rows, cols, board, game } = view;
  const colours = COLOURS[game];
  const labels = view.coordinates;
  const left = labels.rows ? MARGIN : 0;
  const svg = node("svg", { viewBox: `0 0 ${cols * CELL + left} ${rows * CELL + MARGIN}`, "data-game": game });
  labels.cols.forEach((text, c) => {
    node("text", { x: left + c * CELL + CELL / 2, y: MARGIN - 6, "text-anchor": "middle", class: "coord" }, svg)
      .textContent = text;
  });
  (labels.rows || []).forEach((text, r) => {
    node("text", { x: left / 2, y: MARGIN + r * CELL + CELL / 2 + 5, "text-anchor": "middle", class: "coord" }, svg)
      .textContent = text;
  });
  const grid = node("g", { transform: `translate(${left}, ${MARGIN})` }, svg);
  if (colours.board) node("rect", { x: 0, y: 0, width: cols * CELL, height: rows * CELL, fill: colours.board }, grid);
  const won = view.ending ? view.ending.cells : [];
  const targets = view.legal.map((m) => m.to).filter(Boolean);
  const sources = view.legal.map((m) => m.from).filter(Boolean);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const x = c * CELL, y = r * CELL, cx = x + CELL / 2, cy = y + CELL / 2;
      const square = node("rect", { x, y, width: CELL, height: CELL, class: "cell", "data-row": r, "data-col": c,
        fill: colours.squares ? colours.squares[(r + c) % 2] : "transparent",
        stroke: game.startsWith("othello") ? "#1b5e20" : game === "connect5" ? "#8d6e63" :
          game === "tictactoe3d" ? "#90a4ae" : "none" }, grid);
      const piece = board[r][c];
      const last = view.last && (same(view.last.to, [r, c]) || same(view.last.from, [r, c]));
      const legal = STEPS[game]
        ? selected && view.legal.some((m) => same(m.from, selected) && same(m.to, [r, c]))
        : targets.some((t) => same(t, [r, c]));
      if (piece) {
        const disc = node("circle", { cx, cy, r: CELL * 0.4, fill: colours.pieces[piece - 1],
          class: `piece p${piece}` + (last ? " last" : "") + (won.some((w) => same(w, [r, c])) ? " win" : ""),
          stroke: colours.pieces[piece - 1] === LIGHT ? "#9e9e9e" : "#000" }, grid);
        if (STEPS[game] && sources.some((s) => same(s, [r, c]))) disc.classList.add("mine");
        if (same(selected, [r, c])) disc.classList.add("selected");
      } else if (game === "connect4" || game.startsWith("pentago")) {
        node("circle", { cx, cy, r: CELL * 0.4, fill: colours.empty, class: "hole" + (last ? " last" : "") }, grid);
      } else if (last) {
        node("circle", { cx, cy, r: CELL * 0.1, fill: "none", class: "last" }, grid);
      }
      if (legal) {
        const mark = node("circle", { cx, cy, r: CELL * (game === "connect4" ? 0.4 : 0.12), class: "legal",
          fill: game === "connect4" ? colours.pieces[view.human] : "rgba(0, 0, 0, 0.35)",
          "fill-opacity": game === "connect4" ? 0.25 : 1, "data-row": r, "data-col": c }, grid);
        if (STEPS[game]) mark.classList.add("target");
        if (game === "pentago" && same(selected, [r, c])) mark.classList.add("selected");
      }
      square.addEventListener("click", () => click(r, c));
    }
  }
  for (const element of grid.querySelectorAll("circle")) {
    const r = Math.floor(element.getAttribute("cy") / CELL), c = Math.floor(element.getAttribute("cx") / CELL);
    element.addEventListener("click", () => click(r, c));
  }
  if (game.startsWith("pentago")) {  // the quadrants' edges
    node("line", { x1: cols * CELL / 2, y1: 0, x2: cols * CELL / 2, y2: rows * CELL, class: "quadrant" }, grid);
    node("line", { x1: 0, y1: rows * CELL / 2, x2: cols * CELL, y2: rows * CELL / 2, class: "quadrant" }, grid);
  }
  if (game === "tictactoe3d") {  // the cube's four levels, side by side
    for (let z = 1; z < 4; z++) node("line", { x1: z * 4 * CELL, y1: 0, x2: z * 4 * CELL, y2: rows * CELL, class: "quadrant" }, grid);
  }
  const turns = document.createElement("div");
  turns.className = "choices";
  const choices = game === "pentago" && selected ? view.legal.filter((m) => same(m.to, selected))
    : turning() ? view.legal : [];
  for (const m of choices) {
    const button = document.createElement("button");
    button.textContent = game === "pentago" ? `${m.text}: turn ${TURNS[m.text.slice(-1)]}` : `turn ${TURNS[m.text]}`;
    button.className = "choice turn";
    button.addEventListener("click", () => { if (!busy) request("/api/move", { move: m.action }, "Thinking..."); });
    turns.appendChild(button);
  }
  $("board").replaceChildren(svg, turns);
}

function drawChart() {
  const chart = $("chart");
  chart.replaceChildren();
  $("knob-label").textContent = "its strength knob";  // until this game's moves say which
  const width = 320, height = 160, pad = 24;
  node("line", { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, stroke: "#999" }, chart);
  node("line", { x1: pad, y1: pad, x2: pad, y2: height - pad, stroke: "#999" }, chart);
  for (const [label, y] of [["1", pad], ["0.5", height / 2], ["0", height - pad]]) {
    node("text", { x: 2, y: y + 4, "font-size": 10, fill: "#1e88e5" }, chart).textContent = label;
  }
  const turns = view.turns;
  if (!turns.length) return;
  const x = (i) => pad + (turns.length === 1 ? 0 : (i * (width - 2 * pad)) / (turns.length - 1));
  const y = (v) => height - pad - v * (height - 2 * pad);
  // beside the estimate, the knob that moves: z where it is finite, else the simulations (log scale), else dropout
  const knobs = [
    ["z", (t) => t.strength && t.strength.z, (v) => v, "its z"],
    ["simulations", (t) => t.strength && t.strength.simulations, (v) => Math.log10(v), "its simulations (log)"],
    ["dropout", (t) => t.strength && t.strength.dropout, (v) => v, "its dropout"],
  ];
  const series = [["estimate", turns.map((t) => t.estimate), "#1e88e5"]];
  const candidates = knobs.map(([name, get, scale, label]) => {
    const raw = turns.map(get).map((v) => (v === null || v === undefined ? null : scale(v)));
    return { name, raw, label, known: raw.filter((v) => v !== null) };
  }).filter((c) => c.known.length);
  const pick = candidates.find((c) => Math.max(...c.known) > Math.min(...c.known)) || candidates[0];
  if (pick) {  // the first knob that moved this game, else the first one it has
    const { name, raw, label, known } = pick;
    const low = name === "z" ? Math.min(-1, ...known) : Math.min(0, ...known);
    const high = name === "z" ? Math.max(1, ...known) : Math.max(...known, low + 1e-9);
    series.push(["knob", raw.map((v) => (v === null ? null : (v - low) / (high - low))), "#f4511e"]);
    const fmt = (v) => (name === "simulations" ? Math.round(10 ** v).toString() : v.toFixed(1));
    node("text", { x: width - pad + 2, y: pad + 4, "font-size": 10, fill: "#f4511e" }, chart).textContent = fmt(high);
    node("text", { x: width - pad + 2, y: height - pad + 4, "font-size": 10, fill: "#f4511e" }, chart).textContent = fmt(low);
    $("knob-label").textContent = label;
  }
  for (const [name, values, colour] of series) {
    const points = values.map((v, i) => (v === null ? null : `${x(i).toFixed(1)},${y(v).toFixed(1)}`)).filter(Boolean);
    node("polyline", { points: points.join(" "), fill: "none", stroke: colour, "stroke-width": 2, class: `series ${name}` }, chart);
    for (const p of points) {
      const [px, py] = p.split(",");
      node("circle", { cx: px, cy: py, r: 2.5, fill: colour, class: `point ${name}` }, chart);
    }
  }
}

function draw() {
  drawBoard();
  drawChart();
  const names = view.board === null ? PLAYERS : COLOURS[view.game].names;
  const you = names[view.human];
  let status;
  if (view.over) {
    const count = view.ending && view.ending.count;
    const score = count ? ` ${you} ${count[view.human]}, ${names[1 - view.human]} ${count[1 - view.human]}.` : "";
    status = { win: "You won!", loss: "You lost.", draw: "A draw." }[view.result] + score +
      " Start a new game to play again.";
  }
  else if (view.human_to_move && view.board === null) status = `Your move: you are ${you}. Choose a move below.`;
  else if (turning()) status = "Now choose which quadrant turns, below the board.";
  else if (view.human_to_move && selected) {
    status = view.game === "pentago" ? "Now choose which quadrant turns, below the board." : "Now click where it goes.";
  } else if (view.human_to_move) status = `Your move: you are ${you}.`;
  else status = "Thinking...";
  $("status").textContent = status;
  $("strength").textContent = view.level_text;
  $("strength").title = `its knobs: ${view.strength_text}`;
  const turn = view.turns[view.turns.length - 1];
  $("estimate").textContent = turn && turn.estimate !== null
    ? `it thinks it will score about ${turn.estimate.toFixed(2)} (0: it loses, 1: it wins); its own guess, often wrong`
    : "-";
  const r = view.record;
  const games = `${r.games} game${r.games === 1 ? "" : "s"}`;
  $("record").textContent = (r.name ? `${r.name}: ` : "") + `${games} against it: ${r.wins} won, ${r.draws} drawn, ${r.losses} lost.`;
  const moves = $("moves");
  moves.replaceChildren(...view.turns.map((t) => {
    const item = document.createElement("li");
    item.textContent = `ply ${t.ply + 1}: it plays ${t.text} (${t.strength_text})`;
    return item;
  }));
  $("pass").hidden = view.board === null || !passMove();  // Othello's when it has no other move; Go's always
  for (const id of ["undo", "hint", "resign"]) $(id).disabled = !view.human_to_move;
}

function fillOpponents() {
  const game = options.games.find((g) => g.name === $("game").value);
  const select = $("opponent");
  select.replaceChildren(...game.opponents.map((o) => new Option(o.label, o.spec)), new Option("Custom spec...", ""));
  $("spec").closest("label").hidden = true;
}

async function start() {
  options = await api("/api/options");
  $("game").replaceChildren(...options.games.map((g) => new Option(g.name, g.name)));
  $("game").value = options.default_game;
  fillOpponents();
  $("game").addEventListener("change", fillOpponents);
  $("opponent").addEventListener("change", () => { $("spec").closest("label").hidden = $("opponent").value !== ""; });
  $("setup").addEventListener("submit", (event) => {
    event.preventDefault();
    const opponent = $("opponent").value || $("spec").value;
    request("/api/new", { game: $("game").value, opponent, first: $("first").value === "true",
      profile: $("profile").value.trim() || null }, "Starting...");
  });
  $("pass").addEventListener("click", () => request("/api/move", { move: passMove().action }, "Thinking..."));
  $("undo").addEventListener("click", () => request("/api/undo", {}));
  $("resign").addEventListener("click", () => request("/api/resign", {}));
  $("hint").addEventListener("click", async () => {
    const data = await request("/api/hint", {}, "Looking for a good move...");
    if (data) $("status").textContent = `Hint: ${data.hint.text}`;
  });
  try {
    view = await api("/api/state");
    draw();
  } catch (error) {
    // no game yet in this browser session
  }
  document.body.dataset.ready = "true";
}

start();
