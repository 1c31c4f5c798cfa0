// The analysis board's page: draws what the server says and asks it everything else.
//
// The page has no game rules of its own: the board after a move string, the legal columns and
// the end of the game come from /api/position; verdicts, the search's view and the evaluations
// from /api/analyze; the agent's moves from /api/move (our engine in a mode, or one of the
// players the board was started with, /api/players, picked by name: the page can name no
// other); reviews from /api/review.  Every request
// carries this page's id, so the server cancels the work of a position the page has left.
// Input (clicks, keys, undo, redo) goes through one queue: each move is played on the position
// the one before it left, however fast they come.
"use strict";

(() => {
  const WIDTH = 7;
  const HEIGHT = 6;
  const CELL = 100;
  const VERDICT_SECONDS = 1;
  const PROVE_LONGER_SECONDS = 10;
  const PAGE = (window.crypto && crypto.randomUUID ? crypto.randomUUID() :
    String(Math.random()).slice(2) + String(Date.now())).replace(/[^A-Za-z0-9_-]/g, "");
  // X moved first, O second, in every command and picture; columns read 1-7 as in move strings.
  const PLAYER_NAMES = { 1: "X (first, ✕)", 2: "O (second, ◯)" };

  const state = {
    moves: "",
    redo: [],
    position: null,
    view: "analyse",
    generation: 0,
    game: null,      // a game against the agent: {mode or player, who, seconds, human, over, thinking, busy, moves}
    review: null,    // an opened review: {data, ply, source, id}
  };
  const controllers = {};
  let inputs = Promise.resolve();

  const $ = (id) => document.getElementById(id);
  const svgNS = "http://www.w3.org/2000/svg";

  class ApiError extends Error {
    constructor(status, message) { super(message); this.status = status; }
  }

  // --- the server --------------------------------------------------------------------------

  async function api(path, params, kind) {
    if (kind && controllers[kind]) controllers[kind].abort();
    const controller = new AbortController();
    if (kind) controllers[kind] = controller;
    const query = new URLSearchParams({ ...params, page: PAGE });
    const response = await fetch(`${path}?${query}`, { signal: controller.signal });
    let body = null;
    try { body = await response.json(); } catch (e) { body = { error: `HTTP ${response.status}` }; }
    if (kind && controllers[kind] === controller) delete controllers[kind];
    if (!response.ok) throw new ApiError(response.status, body.error || `HTTP ${response.status}`);
    return body;
  }

  function quiet(error) {
    // Work replaced by newer work: aborted here, or cancelled by the server (409).
    return error.name === "AbortError" || (error instanceof ApiError && error.status === 409);
  }

  function abortAnalysis() {
    for (const kind of ["columns", "search"]) {
      if (controllers[kind]) { controllers[kind].abort(); delete controllers[kind]; }
    }
  }

  function showError(message) {
    const box = $("error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  function enqueue(task) {
    // One input at a time, each on the position the one before it left.
    inputs = inputs.then(task).catch((error) => showError(error.message));
    return inputs;
  }

  // --- drawing -----------------------------------------------------------------------------

  function svg(name, attributes, parent) {
    const node = document.createElementNS(svgNS, name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    if (parent) parent.appendChild(node);
    return node;
  }

  function drawBoard() {
    const board = $("board");
    const focused = document.activeElement && document.activeElement.closest
      ? document.activeElement.closest("#board .column") : null;
    const focusedColumn = focused ? focused.dataset.col : null;
    const position = state.position;
    board.replaceChildren();
    svg("rect", { x: 0, y: 0, width: WIDTH * CELL, height: HEIGHT * CELL, rx: 24, class: "frame" }, board);
    const four = new Set((position ? position.four : []).map(([r, c]) => `${r},${c}`));
    for (let col = 0; col < WIDTH; col++) {
      const legal = position && position.legal.includes(col) && !position.over;
      const group = svg("g", { class: `column${legal ? "" : " full"}`, "data-col": col,
        role: "button", tabindex: 0, "aria-label": columnLabel(col, legal),
        "aria-disabled": legal ? "false" : "true" }, board);
      svg("rect", { x: col * CELL, y: 0, width: CELL, height: HEIGHT * CELL, class: "hover" }, group);
      for (let row = 0; row < HEIGHT; row++) {
        const value = position ? position.grid[row][col] : 0;
        const cx = col * CELL + CELL / 2;
        const cy = row * CELL + CELL / 2;
        const topOfColumn = row === 0 || !position || position.grid[row - 1][col] === 0;
        const isLast = position && position.last === col && value !== 0 && topOfColumn;
        const classes = [value === 0 ? "hole" : `p${value}`];
        if (isLast) classes.push("last");
        svg("circle", { cx, cy, r: 40, class: classes.join(" "),
          "data-row": row, "data-cell": value }, group);
        if (value === 1) {
          svg("path", { d: `M${cx - 16},${cy - 16}L${cx + 16},${cy + 16}M${cx + 16},${cy - 16}L${cx - 16},${cy + 16}`,
            class: "mark1" }, group);
        } else if (value === 2) {
          svg("circle", { cx, cy, r: 18, class: "mark2" }, group);
        }
        if (four.has(`${row},${col}`)) svg("circle", { cx, cy, r: 45, class: "four", fill: "none" }, group);
      }
      svg("text", { x: col * CELL + CELL / 2, y: HEIGHT * CELL + 30, class: "label" }, board).textContent = col + 1;
    }
    // Redrawing replaces the columns: the keyboard's focus stays on the same column.
    if (focusedColumn !== null) board.querySelector(`.column[data-col="${focusedColumn}"]`).focus();
  }

  function columnLabel(col, legal) {
    const cell = $("verdicts").children[col];
    const verdict = cell && cell.dataset.words ? `: ${cell.dataset.words}` : "";
    return legal ? `column ${col + 1}, drop a disc${verdict}` : `column ${col + 1}, no move`;
  }

  function drawStatus() {
    const position = state.position;
    if (!position) return;
    let text;
    const forfeit = state.view === "play" && state.game && state.game.forfeit;
    if (position.over) {
      text = position.winner ? `Game over: ${PLAYER_NAMES[position.winner]} won` : "Game over: a draw";
    } else if (forfeit) {
      text = `Game over: ${PLAYER_NAMES[state.game.human]} won, ${forfeit}`;
    } else {
      text = `${PLAYER_NAMES[position.to_move]} to move`;
    }
    text += ` · ${position.discs} discs · moves ${position.moves || "(none)"}`;
    $("status").textContent = text;
    $("undo").disabled = !state.moves || gameRunning();
    $("redo").disabled = !state.redo.length || gameRunning();
    $("moves-input").value = state.moves;
  }

  function setVerdictCells(columns, seconds) {
    const row = $("verdicts");
    row.replaceChildren();
    for (let col = 0; col < WIDTH; col++) {
      const cell = document.createElement("div");
      cell.className = "verdict";
      cell.dataset.col = col;
      const entry = columns ? columns[col] : null;
      if (!entry) {
        cell.classList.add("pending");
        // Hidden while a game is played; "…" while the verdicts are being proven.
        const waiting = state.view !== "play" && state.position && !state.position.over;
        cell.textContent = waiting ? "…" : "";
      } else if (!entry.legal) {
        cell.classList.add("full");
        cell.textContent = "full";
      } else {
        cell.dataset.words = entry.words;
        cell.dataset.outcome = entry.outcome || "unproven";
        if (entry.outcome) {
          cell.classList.add(entry.outcome);
          // The length in a second line when it is proven ("in 7 moves").
          // A draw's "(the board fills up in 18 moves)" in short for the narrow cell.
          const rest = entry.score === null ? "" : entry.words.replace(/^(win|draw|loss)[:\s]*/, "")
            .replace(/^\(the board fills up (in .*)\)$/, "board full $1");
          cell.innerHTML = `<b>${entry.outcome}</b>${escapeHtml(rest)}`;
          const score = entry.score === null ? "not proven" : (entry.score > 0 ? `+${entry.score}` : entry.score);
          cell.title = `Pons' score ${score} (${entry.source}); ${entry.words}`;
        } else {
          cell.classList.add("unproven");
          cell.innerHTML = `<b>?</b>not proven in ${seconds} s<br>estimate ${entry.estimate}`;
          cell.title = `Not proven in ${seconds} s: the search's estimate is ${entry.estimate} (its own scale)`;
        }
      }
      row.appendChild(cell);
    }
  }

  function escapeHtml(text) {
    return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  }

  function flipped() {
    return document.body.classList.contains("flipped");
  }

  function updateLinks() {
    const common = { moves: state.moves, verdicts: $("save-verdicts").checked ? 1 : 0, flip: flipped() ? 1 : 0 };
    for (const fmt of ["svg", "png"]) {
      const link = $(`save-${fmt}`);
      link.href = `/api/diagram?${new URLSearchParams({ ...common, format: fmt })}`;
      link.download = `connect4-${state.moves || "start"}.${fmt}`;
    }
  }

  function updateUrl() {
    const query = new URLSearchParams();
    if (state.moves) query.set("moves", state.moves);
    if (flipped()) query.set("flip", "1");
    if (state.view === "review" && state.review && state.review.source) {
      query.set("review", `${state.review.source}:${state.review.id}`);
      query.set("ply", state.review.ply);
    }
    const text = query.toString();
    history.replaceState(null, "", text ? `/?${text}` : "/");
  }

  // --- positions -----------------------------------------------------------------------------

  async function setMoves(moves, { keepRedo = false } = {}) {
    const generation = ++state.generation;
    abortAnalysis();
    let position;
    try {
      position = await api("/api/position", { moves }, "position");
    } catch (error) {
      if (!quiet(error)) showError(error.message);
      return false;
    }
    if (generation !== state.generation) return false;
    showError("");
    if (!keepRedo) state.redo = [];
    state.moves = position.moves;
    state.position = position;
    setVerdictCells(null);
    drawBoard();
    drawStatus();
    updateLinks();
    updateUrl();
    if (state.view !== "play") analyse(generation);
    else clearAnalysis();
    return true;
  }

  function clearAnalysis() {
    $("verdict-status").textContent = "—";
    for (const id of ["search-column", "search-depth", "search-score", "search-pv", "search-nodes",
      "search-seconds-used", "eval-windows", "eval-learned"]) $(id).textContent = "—";
  }

  async function analyse(generation) {
    clearAnalysis();
    if (state.position.over) {
      $("verdict-status").textContent = "The game is over: nothing to analyse.";
      setVerdictCells(null);
      drawBoard();
      return;
    }
    document.body.dataset.analysis = "running";
    await Promise.all([proveVerdicts(generation, VERDICT_SECONDS), runSearch(generation)]);
    if (generation === state.generation) document.body.dataset.analysis = "done";
  }

  async function proveVerdicts(generation, budget) {
    // The outcomes first (the book's answer at once), then the exact lengths with the table warm.
    const first = await proveColumns(generation, budget, false, null);
    if (first && !first.all_exact) await proveColumns(generation, budget, true, first);
  }

  async function proveColumns(generation, budget, exact, before) {
    const moves = state.moves;
    $("verdict-status").textContent = exact
      ? "Every column's outcome is shown; proving the exact lengths…"
      : `Proving each column (up to ${budget} s)…`;
    const parts = exact ? "columns" : "columns,evaluations";
    let view;
    try {
      view = await api("/api/analyze", { moves, seconds: budget, parts, exact: exact ? 1 : 0 }, "columns");
    } catch (error) {
      if (!quiet(error)) showError(error.message);
      return null;
    }
    if (generation !== state.generation) return null;
    if (before) {
      // A proof already shown stays: a later pass may run on a colder table and prove less.
      view.columns = view.columns.map((c, i) => (c.proven || !before.columns[i].proven ? c : before.columns[i]));
      view.all_proven = view.columns.every((c) => !c.legal || c.proven);
    }
    setVerdictCells(view.columns, budget);
    drawBoard();
    const legal = view.columns.filter((c) => c.legal);
    const proven = legal.filter((c) => c.proven);
    const sources = [...new Set(proven.map((c) => c.source))].join(" and ");
    const scores = legal.filter((c) => c.score !== null).length;
    $("verdict-status").textContent = (view.all_proven
      ? `All ${legal.length} columns proven (${sources})`
      : `${proven.length} of ${legal.length} columns proven in ${budget} s; the others show the search's estimate`)
      + (exact ? `; exact scores known for ${scores}.` : ".");
    const best = $("verdicts").children[view.best];
    if (best) best.classList.add("best");
    if (view.evaluations) {
      $("eval-windows").textContent = view.evaluations.windows5000;
      $("eval-learned").textContent =
        `${view.evaluations.learned} (logit; win chance ${Math.round(view.evaluations.learned_win_chance * 100)} %)`;
    }
    document.body.dataset.verdicts = moves;
    return view;
  }

  async function runSearch(generation) {
    const seconds = $("search-seconds").value;
    $("search-column").textContent = `thinking for ${seconds} s…`;
    try {
      const view = await api("/api/analyze", { moves: state.moves, seconds, parts: "search" }, "search");
      if (generation !== state.generation) return;
      const s = view.search;
      $("search-column").textContent = s.column + 1;
      $("search-depth").textContent = `${s.depth} plies`;
      $("search-score").textContent = s.proven ? `${s.words} (search score ${s.score})` : `${s.score} (heuristic)`;
      $("search-pv").textContent = s.pv.map((c) => c + 1).join(" ");
      $("search-nodes").textContent = s.nodes.toLocaleString("en");
      $("search-seconds-used").textContent = s.seconds;
    } catch (error) {
      if (!quiet(error)) showError(error.message);
    }
  }

  function drop(col) {
    if (state.view === "play") {
      // From a move of ours to the agent's answer, keys and clicks are not kept for later.
      const game = state.game;
      if (!gameRunning() || game.busy) return;
      game.busy = true;
      enqueue(() => playMove(col).finally(() => { game.busy = false; }));
      return;
    }
    enqueue(async () => {
      const position = state.position;
      if (!position || position.over || !position.legal.includes(col)) return;
      if (state.view === "review") leaveReview();
      await setMoves(state.moves + String(col + 1));
    });
  }

  function undo() {
    enqueue(async () => {
      if (!state.moves || gameRunning()) return;
      if (state.view === "review") leaveReview();
      state.redo.push(state.moves.slice(-1));
      await setMoves(state.moves.slice(0, -1), { keepRedo: true });
    });
  }

  function redo() {
    enqueue(async () => {
      if (!state.redo.length || gameRunning()) return;
      if (state.view === "review") leaveReview();
      await setMoves(state.moves + state.redo.pop(), { keepRedo: true });
    });
  }

  // --- playing the agent -------------------------------------------------------------------

  function gameRunning() {
    return state.view === "play" && state.game !== null && !state.game.over;
  }

  function logLine(text, kind) {
    const item = document.createElement("li");
    item.textContent = text;
    if (kind) item.className = kind;
    $("play-log").appendChild(item);
    item.scrollIntoView({ block: "nearest" });
  }

  async function loadPlayers() {
    // The players of the board's --players, after our engine's two modes.
    let listing;
    try {
      listing = await api("/api/players", {}, "players");
    } catch (error) {
      if (!quiet(error)) showError(error.message);
      return;
    }
    if (!listing.players.length) return;
    const group = document.createElement("optgroup");
    group.label = "players the board was started with (--players)";
    for (const player of listing.players) {
      const option = document.createElement("option");
      option.value = player.name;
      option.dataset.listed = "1";
      const own = player.seconds === null ? "" : `, its own ${player.seconds} s a move`;
      option.textContent = `${player.name} (${player.kind}${own})`;
      group.appendChild(option);
    }
    $("play-mode").appendChild(group);
  }

  function endListedGame(game) {
    // The server keeps a listed player (its process) for the game: tell it the game is over.
    if (game && game.player) api("/api/end", {}, null).catch(() => {});
  }

  async function startGame(event) {
    if (event) event.preventDefault();
    if (state.game && !state.game.over) endListedGame(state.game);
    const human = $("play-first").value === "me" ? 1 : 2;
    const picked = $("play-mode").selectedOptions[0];
    const listed = picked.dataset.listed === "1";
    state.game = { mode: listed ? null : picked.value, player: listed ? picked.value : null,
      who: listed ? picked.value : "the agent", seconds: $("play-seconds").value, human,
      over: false, thinking: false, busy: false, moves: "" };
    delete document.body.dataset.gameOver;
    $("play-log").replaceChildren();
    $("play-review").disabled = true;
    logLine(`You are ${PLAYER_NAMES[human]}, ${state.game.who} ${PLAYER_NAMES[3 - human]}.`);
    await setMoves("");
    if (human === 2) await agentMove();
    else $("play-status").textContent = "Your move: click a column or press 1-7.";
  }

  async function playMove(col) {
    const position = state.position;
    const game = state.game;
    if (!gameRunning() || game.thinking || position.to_move !== game.human
        || position.over || !position.legal.includes(col)) return;
    if (!(await setMoves(state.moves + String(col + 1)))) return;
    logLine(`You: column ${col + 1}`);
    game.moves = state.moves;
    if (!checkGameOver()) await agentMove();
  }

  async function agentMove() {
    const game = state.game;
    game.thinking = true;
    document.body.dataset.thinking = "1";
    $("play-status").textContent = game.player
      ? `${game.player} is thinking (${game.seconds} s unless its spec says)…`
      : `The agent is thinking (${game.mode} mode, ${game.seconds} s)…`;
    try {
      const who = game.player ? { player: game.player } : { mode: game.mode };
      const move = await api("/api/move", { moves: state.moves, ...who, seconds: game.seconds }, "move");
      if (state.game !== game || state.view !== "play") return;
      if (move.fault && move.fault.kind === "stopped") {
        // Its process was ended from outside its sandbox: no one's fault, no result.
        logLine(move.words, "fault");
        endGame("No result: " + move.words + ".");
        return;
      }
      if (move.fault) {
        // The player's fault (late, illegal, crashed...) ends the game: the person won.
        logLine(move.words, "fault");
        game.forfeit = move.words;
        endGame("You won: " + move.words + ".");
        return;
      }
      // A listed player is named in the log's first line: its moves say their time.
      const how = game.player
        ? `${move.seconds} s${move.budget === null ? "" : ` of its ${move.budget} s`}`
        : `${move.source === "search" ? `depth ${move.depth}` : move.source}, ${move.seconds} s, ${move.words}`;
      await setMoves(state.moves + String(move.column + 1));
      logLine(`Agent: column ${move.column + 1} (${how})`);
      game.moves = state.moves;
      if (!checkGameOver()) $("play-status").textContent = "Your move: click a column or press 1-7.";
    } catch (error) {
      if (!quiet(error)) { showError(error.message); $("play-status").textContent = "The agent could not move."; }
    } finally {
      game.thinking = false;
      delete document.body.dataset.thinking;
    }
  }

  function checkGameOver() {
    const position = state.position;
    if (!position.over) return false;
    let text = "A draw.";
    if (position.winner) {
      text = position.winner === state.game.human ? "You won!"
        : state.game.player ? `${state.game.player} won.` : "The agent won.";
    }
    endGame(text);
    return true;
  }

  function endGame(text) {
    state.game.over = true;
    endListedGame(state.game);
    $("play-status").textContent = `Game over: ${text} Review it to see every move judged.`;
    document.body.dataset.gameOver = text;
    $("play-review").disabled = false;
    drawStatus();
  }

  // --- reviewing games -----------------------------------------------------------------------

  async function loadGames(event) {
    if (event) event.preventDefault();
    const params = { source: $("filter-source").value, server: $("filter-server").value,
      result: $("filter-result").value, since: $("filter-since").value, until: $("filter-until").value };
    let listing;
    try {
      listing = await api("/api/games", params, "games");
    } catch (error) {
      if (!quiet(error)) showError(error.message);
      return;
    }
    fillSelect($("filter-source"), listing.sources);
    fillSelect($("filter-server"), listing.servers);
    const body = $("games").tBodies[0];
    body.replaceChildren();
    $("games-count").textContent = listing.total > listing.games.length
      ? `The newest ${listing.games.length} of ${listing.total} games; filter to see others.`
      : `${listing.total} game${listing.total === 1 ? "" : "s"}.`;
    if (!listing.games.length) {
      const row = body.insertRow();
      const cell = row.insertCell();
      cell.colSpan = 6;
      cell.textContent = "No games: play some (agent.py online, local) or change the filters.";
    }
    for (const game of listing.games) {
      const row = body.insertRow();
      row.dataset.key = `${game.source}:${game.id}`;
      row.insertCell().textContent = game.started.slice(0, 16).replace("T", " ");
      row.insertCell().textContent = game.source === "server" ? "local server" : `${game.kind} · ${game.server}`;
      row.insertCell().textContent = game.opponent;
      const result = row.insertCell();
      result.textContent = game.result;
      result.className = `result-${game.result}`;
      result.title = game.detail;
      row.insertCell().textContent = game.plies;
      const open = document.createElement("button");
      open.type = "button";
      open.textContent = "Open";
      open.setAttribute("aria-label", `Open ${game.source} game ${game.id}`);
      open.addEventListener("click", () => openReview({ source: game.source, id: game.id }));
      row.insertCell().appendChild(open);
    }
  }

  function fillSelect(select, values) {
    const chosen = select.value;
    const keep = [...select.options].slice(0, 1);
    select.replaceChildren(...keep);
    for (const value of values) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = value;
      select.appendChild(option);
    }
    select.value = values.includes(chosen) ? chosen : "";
  }

  async function openReview(which, ply) {
    switchView("review");
    $("review").hidden = false;
    $("review-summary").textContent = "Judging every move…";
    $("review-moves").replaceChildren();
    document.body.dataset.review = "running";
    let data;
    try {
      data = await api("/api/review", which, "review");
    } catch (error) {
      if (!quiet(error)) { showError(error.message); $("review-summary").textContent = ""; }
      document.body.dataset.review = "failed";
      return false;
    }
    state.review = { data, ply: 0, source: which.source, id: which.id };
    for (const row of $("games").tBodies[0].rows) {
      row.classList.toggle("open", row.dataset.key === `${which.source}:${which.id}`);
    }
    $("review-summary").textContent = data.text;
    const list = $("review-moves");
    for (const entry of data.plies) {
      const item = document.createElement("li");
      item.dataset.ply = entry.ply;
      if (entry.ours) item.classList.add("ours");
      if (entry.ours && entry.kept === true) item.classList.add("kept");
      if (entry.ours && entry.kept === false) item.classList.add("lost");
      if (entry.ours && !entry.proven) item.classList.add("unproven");
      if (entry.ply === data.summary.first_lost) item.classList.add("first-lost");
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = `${entry.ply}. ${entry.column + 1}`;
      button.title = moveText(entry);
      button.addEventListener("click", () => showPly(entry.ply));
      item.appendChild(button);
      list.appendChild(item);
    }
    $("step-lost").disabled = !data.summary.first_lost;
    document.body.dataset.review = "done";
    await showPly(ply === undefined ? data.plies.length : ply);
    return true;
  }

  function leaveReview() {
    // Playing a move of one's own from a reviewed position: a variation, in the analysis view.
    switchView("analyse", { redraw: false });
  }

  function moveText(entry) {
    const whose = entry.ours ? "ours" : "theirs";
    let verdict = "not proven in the time";
    if (entry.kept === true) verdict = `kept the outcome (${entry.best})`;
    if (entry.kept === false) verdict = `lost the outcome: ${entry.best} → ${entry.outcome}`;
    return `Move ${entry.ply} (${whose}): column ${entry.column + 1}, ${verdict}`;
  }

  async function showPly(ply) {
    const review = state.review;
    if (!review || !Number.isInteger(ply)) return;
    const total = review.data.plies.length;
    review.ply = Math.max(0, Math.min(total, ply));
    for (const item of $("review-moves").children) {
      item.classList.toggle("current", Number(item.dataset.ply) === review.ply);
    }
    const lines = [];
    if (review.ply > 0) lines.push(moveText(review.data.plies[review.ply - 1]));
    if (review.ply < total) {
      const next = review.data.plies[review.ply];
      let line = `Next: ${moveText(next)}`;
      if (next.kept === false && next.outcomes) {
        // The API's keys are 0-based columns; people read 1-7.
        const keeping = Object.entries(next.outcomes).filter(([, o]) => o === next.best)
          .map(([c]) => Number(c) + 1);
        line += `; columns that kept it: ${keeping.join(", ")}`;
      }
      lines.push(line);
    }
    $("review-move").textContent = lines.join(" · ");
    document.body.dataset.reviewPly = review.ply;
    await setMoves(review.data.moves.slice(0, review.ply));
  }

  // --- views, keys, start ------------------------------------------------------------------

  function switchView(view, { redraw = true } = {}) {
    if (state.view === view) return;
    if (state.view === "play" && state.game && !state.game.over) state.game.moves = state.moves;
    state.view = view;
    for (const name of ["analyse", "play", "review"]) {
      $(`panel-${name}`).hidden = name !== view;
      $(`tab-${name}`).setAttribute("aria-pressed", String(name === view));
    }
    if (view === "review") loadGames();
    if (!redraw) return;
    // Back to a game left running: its position again.
    const moves = view === "play" && state.game && !state.game.over ? state.game.moves : state.moves;
    if (state.position) enqueue(() => setMoves(moves, { keepRedo: true }));
  }

  function onKey(event) {
    const target = event.target;
    if (target && ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName)) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const reviewing = state.view === "review" && state.review;
    if (/^[1-7]$/.test(event.key)) {
      drop(Number(event.key) - 1);
    } else if (event.key === "ArrowLeft") {
      if (reviewing) showPly(state.review.ply - 1); else undo();
    } else if (event.key === "ArrowRight") {
      if (reviewing) showPly(state.review.ply + 1); else redo();
    } else if (event.key === "Home" && reviewing) {
      showPly(0);
    } else if (event.key === "End" && reviewing) {
      showPly(state.review.data.plies.length);
    } else if (event.key === "n") {
      newGame();
    } else if (event.key === "f") {
      flip();
    } else if ((event.key === "Enter" || event.key === " ") && target.dataset && target.dataset.col !== undefined) {
      drop(Number(target.dataset.col));
    } else {
      return;
    }
    event.preventDefault();
  }

  function newGame() {
    if (state.view === "play") {
      if (gameRunning()) {
        $("play-status").textContent = "A game is running: finish it, or press Start a game for a new one.";
        return;
      }
      startGame();
      return;
    }
    enqueue(async () => {
      if (state.view === "review") leaveReview();
      await setMoves("");
    });
  }

  function flip() {
    document.body.classList.toggle("flipped");
    updateLinks();
    updateUrl();
  }

  async function start() {
    $("board").addEventListener("click", (event) => {
      const group = event.target.closest(".column");
      if (group) drop(Number(group.dataset.col));
    });
    document.addEventListener("keydown", onKey);
    $("undo").addEventListener("click", undo);
    $("redo").addEventListener("click", redo);
    $("new").addEventListener("click", newGame);
    $("flip").addEventListener("click", flip);
    $("save-verdicts").addEventListener("change", updateLinks);
    $("prove-longer").addEventListener("click", () => {
      if (state.position && !state.position.over) proveVerdicts(state.generation, PROVE_LONGER_SECONDS);
    });
    $("search-seconds").addEventListener("change", () => runSearch(state.generation));
    $("moves-form").addEventListener("submit", (event) => {
      event.preventDefault();
      enqueue(async () => {
        if (state.view !== "analyse") switchView("analyse", { redraw: false });
        await setMoves($("moves-input").value.trim());
      });
    });
    $("state-form").addEventListener("submit", (event) => {
      event.preventDefault();
      enqueue(async () => {
        let found;
        try {
          found = await api("/api/state", { state: $("state-input").value }, "state");
        } catch (error) {
          if (!quiet(error)) showError(error.message);
          return;
        }
        if (state.view !== "analyse") switchView("analyse", { redraw: false });
        await setMoves(found.moves);
      });
    });
    for (const view of ["analyse", "play", "review"]) {
      $(`tab-${view}`).addEventListener("click", () => switchView(view));
    }
    $("play-form").addEventListener("submit", startGame);
    // A page closed in a game: its listed player need not wait for the idle timeout.
    window.addEventListener("pagehide", () => {
      if (state.game && state.game.player && !state.game.over) {
        fetch(`/api/end?${new URLSearchParams({ page: PAGE })}`, { keepalive: true }).catch(() => {});
      }
    });
    loadPlayers();
    $("play-review").addEventListener("click", () => {
      openReview({ moves: state.moves, side: state.game.human });
    });
    $("games-form").addEventListener("submit", loadGames);
    $("step-first").addEventListener("click", () => showPly(0));
    $("step-back").addEventListener("click", () => state.review && showPly(state.review.ply - 1));
    $("step-forward").addEventListener("click", () => state.review && showPly(state.review.ply + 1));
    $("step-last").addEventListener("click", () => state.review && showPly(state.review.data.plies.length));
    $("step-lost").addEventListener("click", () => {
      const first = state.review && state.review.data.summary.first_lost;
      if (first) showPly(first - 1);
    });

    // The position, a review, the colours: as the address says, or the empty board.
    const query = new URLSearchParams(location.search);
    if (query.get("flip") === "1") document.body.classList.add("flipped");
    const review = /^(record|server|rated):(\d+)$/.exec(query.get("review") || "");
    let shown = false;
    if (review) {
      const ply = Number(query.get("ply"));
      shown = await openReview({ source: review[1], id: review[2] },
        query.has("ply") && Number.isInteger(ply) ? ply : undefined);
      if (!shown) switchView("analyse", { redraw: false });
    } else {
      shown = await setMoves(query.get("moves") || "");
    }
    if (!shown) {
      const problem = $("error").textContent;
      await setMoves("");
      showError(`${problem} The board starts empty instead.`);
    }
  }

  start();
})();
