// The game page (GET /play/{id}): the board, the players, whose turn and the deadline,
// the move list with replay controls, and, on the player's turn, moving by clicks:
// a piece, then its destination, then (when the move needs one) the victim, the maze
// exit or the placement square, then Confirm. A text box takes a move in canonical
// notation instead. The page follows the game through GET /v1/games/{id}/stream (SSE).
//
// For tools and tests, <img id="board"> carries:
//   data-dfen     the DFEN of the position shown
//   data-version  the version shown
//   data-current  "true" when the position shown is the game's newest one
//   data-ready    "true" once the picture and the DFEN are loaded
// and #squares button[data-square] are the squares (classes `movable`, `target`,
// `selected`, `choice`), each in a gridcell of a row of the role=grid #squares. ?live=0 turns the event stream off (tests of stale pages).
// While conditional moves are being entered (the "Conditional moves" panel, shown to a
// seated player of a running game when it is not their turn) the board shows the
// position the line reaches (GET /v1/positions/board.svg), its squares pick that
// position's legal moves (GET /v1/positions/legal-moves), each chosen ply is played on it
// (POST /v1/positions/play) and data-current is "false". The stored lines are a tree in
// #cond-tree: li[data-path] per ply ("B G8-E6 Y H3-F5"), button.cond-prune to remove it
// and what follows; #cond[data-ready="true"] once the tree is loaded.
(function () {
  "use strict";

  var root = document.getElementById("play");
  if (!root || !window.Djambi) return;
  var D = window.Djambi;
  var T = D.t;
  var gameId = root.getAttribute("data-game-id");
  var api = "/v1/games/" + encodeURIComponent(gameId);
  var me = document.body.getAttribute("data-user-id");
  var params = new URLSearchParams(window.location.search);
  var live = params.get("live") !== "0";

  var board = document.getElementById("board");
  var grid = document.getElementById("squares");
  var list = document.getElementById("move-list");
  var counter = document.getElementById("counter");
  var panel = document.getElementById("move-panel");
  var prompt = document.getElementById("choice-prompt");
  var choices = document.getElementById("choices");
  var confirmButton = document.getElementById("confirm");
  var textForm = document.getElementById("text-move");
  var textInput = document.getElementById("move-text");
  var message = document.getElementById("message");
  var moveTitle = document.getElementById("move-title");
  var moveTitleText = moveTitle.textContent;
  var textSubmit = document.getElementById("move-text-submit");
  var textSubmitText = textSubmit.textContent;
  var condPanel = document.getElementById("cond");
  var MAX_PLIES = 12;

  var FILES = "ABCDEFGHI";
  var KIND_GLYPH = { chief: "C", assassin: "A", reporter: "R", diplomat: "D", necromobile: "N", militant: "M" };
  var STEPS = [
    { field: "victim", ask: T("js-ask-victim"), none: T("js-no-victim") },
    { field: "exit", ask: T("js-ask-exit"), none: T("js-stay") },
    { field: "place", ask: T("js-ask-place"), none: T("js-nowhere") },
  ];

  var summary = null;     // GET /v1/games/{id}
  var current = null;     // GET /state (newest)
  var legal = null;       // { version, moves } when it is my turn
  var steps = [];         // [{ version, label }] for the move list
  var shown = -1;         // index into steps, or -1 for the newest position
  var selection = null;   // { from, to, victim, exit, place, candidates }
  // Conditional moves: { seat, version, dfen, ruleset, stored, draft: [[ply]], dirty,
  // compose: null or { plies: [{ seat, text, dfen }], here: { dfen, seat, moves, last } } }
  // where a ply is "B G8-E6".
  var cond = null;
  var lastEvents = [];
  var busy = false;
  var loading = null;

  function showMessage(text, kind) {
    message.hidden = !text;
    message.textContent = text || "";
    message.className = "message" + (kind ? " " + kind : "");
  }

  function mySeats() {
    return (summary ? summary.seats : []).filter(function (s) { return s.user_id === me; }).map(function (s) { return s.seat; });
  }

  function myTurn() {
    return !!(summary && summary.status === "active" && summary.to_move_user_id === me);
  }

  function composing() {
    return !!(cond && cond.compose);
  }

  // The moves the squares pick from: the line's position while composing, else mine.
  function picking() {
    if (composing()) return cond.compose.here ? cond.compose.here.moves : null;
    return myTurn() && legal ? legal.moves : null;
  }

  function canPick() {
    return composing() || myTurn();
  }

  // ---- the squares over the picture -------------------------------------------------

  function buildGrid() {
    grid.textContent = "";
    for (var rank = 9; rank >= 1; rank--) {
      var row = D.el("div", { role: "row", className: "row" });
      for (var f = 0; f < 9; f++) {
        var name = FILES[f] + rank;
        // The ARIA grid pattern: each square a gridcell holding a button (a button may
        // carry aria-pressed, a gridcell may not).
        var button = D.el("button", { type: "button", className: "sq", "data-square": name, tabindex: "-1", "aria-pressed": "false" });
        button.addEventListener("click", onSquare);
        button.addEventListener("keydown", onGridKey);
        row.appendChild(D.el("div", { role: "gridcell", className: "cell" }, [button]));
      }
      grid.appendChild(row);
    }
    grid.querySelector('[data-square="A9"]').setAttribute("tabindex", "0");
  }

  function square(name) {
    return grid.querySelector('[data-square="' + name + '"]');
  }

  function onGridKey(event) {
    var name = event.currentTarget.getAttribute("data-square");
    var f = FILES.indexOf(name[0]);
    var r = parseInt(name.slice(1), 10);
    var moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
    var d = moves[event.key];
    if (!d) return;
    event.preventDefault();
    f = Math.max(0, Math.min(8, f + d[0]));
    r = Math.max(1, Math.min(9, r + d[1]));
    var next = square(FILES[f] + r);
    event.currentTarget.setAttribute("tabindex", "-1");
    next.setAttribute("tabindex", "0");
    next.focus();
  }

  function labelSquares(view) {
    var pieces = {};
    (view ? view.pieces : []).forEach(function (p) { pieces[p.square] = p; });
    Array.prototype.forEach.call(grid.querySelectorAll("button.sq"), function (b) {
      var name = b.getAttribute("data-square");
      var p = pieces[name];
      var square = name === "E5" ? T("js-square-maze", { square: name }) : name;
      var what = p ? T(p.alive ? "js-square-piece" : "js-square-corpse", { seat: D.seatName(p.party), piece: T("piece-" + p.kind) })
        : T("js-square-empty");
      var text = T("js-square", { square: square, what: what });
      b.setAttribute("aria-label", text);
      b.setAttribute("data-piece", p ? p.party + (KIND_GLYPH[p.kind] || "?") + (p.alive ? "" : "x") : "");
    });
  }

  function markSquares() {
    var movable = {}, targets = {}, choice = {};
    var step = pendingStep();
    var pickable = picking();
    if (canPick() && shown === -1 && pickable) {
      if (!selection) {
        pickable.forEach(function (m) { movable[m.move.from] = true; });
      } else if (!selection.to) {
        selection.candidates.forEach(function (m) { targets[m.move.to] = true; });
      } else if (step) {
        selection.candidates.forEach(function (m) { if (m.move[step.field]) choice[m.move[step.field]] = true; });
      }
    }
    Array.prototype.forEach.call(grid.querySelectorAll("button.sq"), function (b) {
      var name = b.getAttribute("data-square");
      b.classList.toggle("movable", !!movable[name]);
      b.classList.toggle("target", !!targets[name]);
      b.classList.toggle("choice", !!choice[name]);
      b.classList.toggle("selected", !!(selection && (selection.from === name || selection.to === name)));
      b.setAttribute("aria-pressed", selection && selection.from === name ? "true" : "false");
    });
  }

  // ---- choosing a move --------------------------------------------------------------

  // The first of victim / exit / placement on which the remaining moves differ.
  function pendingStep() {
    if (!selection || !selection.to) return null;
    for (var i = 0; i < STEPS.length; i++) {
      var field = STEPS[i].field;
      if (selection[field] !== undefined) continue;
      var values = {};
      selection.candidates.forEach(function (m) { values[String(m.move[field])] = true; });
      if (Object.keys(values).length > 1) return STEPS[i];
      selection[field] = selection.candidates.length ? selection.candidates[0].move[field] : null;
    }
    return null;
  }

  function choose(field, value) {
    selection[field] = value;
    selection.candidates = selection.candidates.filter(function (m) { return m.move[field] === value; });
    renderChoice();
  }

  function renderChoice() {
    choices.textContent = "";
    confirmButton.disabled = true;
    moveTitle.textContent = composing() ? T("js-cond-compose-title") : moveTitleText;
    textSubmit.textContent = composing() ? T("js-cond-add-move") : textSubmitText;
    textForm.hidden = !canPick();
    if (!canPick() || shown !== -1) {
      panel.hidden = !canPick();
      markSquares();
      return;
    }
    panel.hidden = false;
    var here = composing() ? cond.compose.here : null;
    if (!picking()) {
      prompt.textContent = T("js-loading-moves");
    } else if (here && !here.seat) {
      prompt.textContent = T("js-cond-line-over");
    } else if (here && cond.compose.plies.length >= MAX_PLIES) {
      prompt.textContent = T("js-cond-line-full", { plies: MAX_PLIES });
    } else if (!selection && here) {
      var plies = cond.compose.plies;
      var answered = plies.length && plies[plies.length - 1].seat === cond.seat;
      prompt.textContent = here.seat === cond.seat ? T("js-cond-choose-answer", { seat: D.seatLabel(here.seat) })
        : T("js-cond-choose-rival", { seat: D.seatLabel(here.seat) }) + (answered ? " " + T("js-cond-or-add") : "");
    } else if (!selection) {
      prompt.textContent = T("js-choose-piece", { seats: mySeats().map(D.seatLabel).join(", ") });
    } else if (!selection.to) {
      prompt.textContent = T("js-choose-target", { square: selection.from });
    } else {
      var step = pendingStep();
      if (step) {
        prompt.textContent = step.ask;
        var values = [];
        selection.candidates.forEach(function (m) {
          var v = m.move[step.field];
          if (values.indexOf(v) < 0) values.push(v);
        });
        values.sort();
        var dialog = D.el("div", { role: "group", className: "choice-dialog", "aria-label": step.ask, "data-field": step.field });
        values.forEach(function (v) {
          var b = D.el("button", { type: "button", className: "choice", "data-field": step.field, "data-value": v === null ? "" : v },
            [v === null ? step.none : v]);
          b.addEventListener("click", function () { choose(step.field, v); });
          dialog.appendChild(b);
        });
        choices.appendChild(dialog);
        var first = dialog.querySelector("button");
        if (first) first.focus();
      } else if (selection.candidates.length === 1) {
        prompt.textContent = T("js-confirm-move", { move: selection.candidates[0].text });
        confirmButton.disabled = false;
        confirmButton.setAttribute("data-move", selection.candidates[0].text);
        confirmButton.focus();
      } else {
        prompt.textContent = T("js-not-legal");
      }
    }
    markSquares();
  }

  function onSquare(event) {
    var name = event.currentTarget.getAttribute("data-square");
    var pickable = picking();
    if (!canPick() || shown !== -1 || !pickable || busy) return;
    showMessage("");
    if (!selection || (!selection.to && selection.from === name)) {
      var from = pickable.filter(function (m) { return m.move.from === name; });
      if (!from.length) {
        if (selection) { selection = null; renderChoice(); }
        return;
      }
      selection = selection && selection.from === name ? null : { from: name, candidates: from };
    } else if (!selection.to) {
      var to = selection.candidates.filter(function (m) { return m.move.to === name; });
      if (to.length) {
        selection.to = name;
        selection.candidates = to;
      } else {
        var other = pickable.filter(function (m) { return m.move.from === name; });
        selection = other.length ? { from: name, candidates: other } : null;
      }
    } else {
      var step = pendingStep();
      if (step && selection.candidates.some(function (m) { return m.move[step.field] === name; })) {
        choose(step.field, name);
        return;
      }
    }
    renderChoice();
  }

  async function send(text) {
    if (busy) return;
    busy = true;
    confirmButton.disabled = true;
    var version = legal ? legal.version : summary.version;
    showMessage(T("js-sending", { move: text }), "info");
    try {
      await D.api("POST", api + "/moves", { move: text, expected_version: version });
      showMessage(T("js-played", { move: text }), "ok");
      textInput.value = "";
      selection = null;
      busy = false;
      await refresh();
    } catch (error) {
      busy = false;
      var why = error.message;
      var problem = error.problem || {};
      var type = String(problem.type || "");
      if (error.status === 412 || /version-conflict/.test(type)) {
        why = T("js-moved-on", { version: problem.current_version || "?", move: text });
      } else if (/illegal-move/.test(type)) {
        why = T("js-refused", { move: text, error: error.message });
      } else if (/not-your-turn/.test(type)) {
        why = T("js-not-your-turn", { move: text, error: error.message });
      } else {
        why = T("js-not-played", { move: text, error: error.message });
      }
      // The chosen move stays in the text box: nothing is lost silently.
      textInput.value = text;
      selection = null;
      await refresh();
      showMessage(why, "error");
    }
  }

  // ---- conditional moves ------------------------------------------------------------

  var KINDS = { C: "chief", A: "assassin", R: "reporter", D: "diplomat", N: "necromobile", M: "militant" };

  // The pieces of a DFEN's placement, as the state's `pieces` (RULES.md section 8).
  function dfenPieces(dfen) {
    var pieces = [];
    String(dfen || "").split(" ")[0].split("/").forEach(function (row, i) {
      var f = 0;
      for (var k = 0; k < row.length; k++) {
        var c = row[k];
        if (c >= "1" && c <= "9") { f += parseInt(c, 10); continue; }
        var kind = row[k + 1] || "";
        k += 1;
        pieces.push({ square: FILES[f] + (9 - i), party: c, kind: KINDS[kind.toUpperCase()] || "militant", alive: kind === kind.toUpperCase() });
        f += 1;
      }
    });
    return pieces;
  }

  function plies(line) {
    var words = String(line).split(/\s+/).filter(Boolean);
    var out = [];
    for (var i = 0; i + 1 < words.length; i += 2) out.push(words[i] + " " + words[i + 1]);
    return out;
  }

  function startsWith(line, prefix) {
    if (prefix.length > line.length) return false;
    for (var i = 0; i < prefix.length; i++) if (line[i] !== prefix[i]) return false;
    return true;
  }

  // The seat whose tree the panel edits: mine, still in, a running game, not my turn.
  function conditionalSeat() {
    if (!summary || !current || summary.status !== "active" || myTurn()) return null;
    var seats = mySeats().filter(function (s) { return current.active_seats.indexOf(s) >= 0; });
    return seats.length ? seats[0] : null;
  }

  // The stored lines from the game's version now: the moves played since the tree's base
  // (none of them mine: the server keeps a tree only while they match) are dropped from
  // the lines' starts; the lines they do not start are gone.
  function rebased(stored) {
    if (!stored || stored.base_version === null || stored.base_version === undefined) return [];
    var since = lastEvents.filter(function (e) { return e.seq > stored.base_version; });
    if (since.some(function (e) { return e.kind !== "move_played"; })) return [];
    var played = since.map(function (e) { return e.payload.seat + " " + e.payload.text; });
    var out = [];
    (stored.lines || []).map(plies).forEach(function (line) {
      if (startsWith(line, played) && line.length > played.length) out.push(line.slice(played.length));
    });
    return out;
  }

  async function loadConditional() {
    var seat = conditionalSeat();
    if (!seat) {
      if (composing()) stopComposing();
      cond = null;
      condPanel.hidden = true;
      return;
    }
    var moved = cond && cond.version !== current.version;
    if (cond && !moved && cond.seat === seat) {
      renderConditional();
      return;
    }
    var had = cond && (cond.dirty || composing());
    if (composing()) { cond.compose = null; selection = null; }
    var stored = await D.api("GET", api + "/seats/" + seat + "/conditional-moves");
    cond = { seat: seat, version: current.version, dfen: current.dfen, ruleset: current.ruleset || summary.ruleset || "",
      stored: stored, draft: rebased(stored), dirty: false, compose: null };
    condPanel.hidden = false;
    if (had && moved) {
      showMessage(T("js-cond-moved-on", { version: current.version }), "error");
      await go(-1);
    }
    renderConditional();
    condPanel.setAttribute("data-ready", "true");
  }

  function plyLabel(ply) {
    var seat = ply.slice(0, 1);
    var text = D.seatLabel(seat) + " " + ply.slice(2);
    return cond && seat === cond.seat ? T("js-cond-your-answer", { move: text }) : text;
  }

  function renderConditional() {
    if (!cond) return;
    var tree = document.getElementById("cond-tree");
    tree.textContent = "";
    var root = { children: [] };
    cond.draft.forEach(function (line) {
      var node = root;
      line.forEach(function (ply) {
        var next = node.children.filter(function (c) { return c.ply === ply; })[0];
        if (!next) { next = { ply: ply, children: [] }; node.children.push(next); }
        node = next;
      });
    });
    (function add(node, path, ul) {
      node.children.forEach(function (c) {
        var here = path.concat([c.ply]);
        var text = plyLabel(c.ply);
        var prune = D.el("button", { type: "button", className: "cond-prune", "data-path": here.join(" "),
          "aria-label": T("js-cond-remove-label", { line: here.join(" ") }) }, [T("js-cond-remove")]);
        prune.addEventListener("click", function () { pruneBranch(here); });
        var li = D.el("li", { "data-path": here.join(" "), className: c.ply.slice(0, 1) === cond.seat ? "answer" : "" },
          [D.el("span", { className: "ply", text: text }), " ", prune]);
        if (c.children.length) {
          var sub = D.el("ul", {});
          add(c, here, sub);
          li.appendChild(sub);
        }
        ul.appendChild(li);
      });
    })(root, [], tree);
    var count = cond.draft.length;
    var summaryText = count ? T(count === 1 ? "js-cond-lines-one" : "js-cond-lines-many", { lines: count }) : T("js-cond-none");
    if (cond.dirty) summaryText += " " + T("js-cond-unsaved");
    D.setText("cond-summary", summaryText);
    document.getElementById("cond-save").disabled = !cond.dirty || busy;
    document.getElementById("cond-clear").hidden = !(cond.stored && cond.stored.lines && cond.stored.lines.length);
    document.getElementById("cond-new").hidden = composing();
    var compose = document.getElementById("cond-compose");
    compose.hidden = !composing();
    if (composing()) {
      var ol = document.getElementById("cond-line");
      ol.textContent = "";
      cond.compose.plies.forEach(function (p) {
        ol.appendChild(D.el("li", { text: plyLabel(p.seat + " " + p.text) }));
      });
      if (!cond.compose.plies.length) ol.appendChild(D.el("li", { className: "empty", text: T("js-cond-line-empty") }));
      var last = cond.compose.plies[cond.compose.plies.length - 1];
      document.getElementById("cond-add").disabled = !(last && last.seat === cond.seat) || busy;
      document.getElementById("cond-undo").disabled = !cond.compose.plies.length || busy;
    }
  }

  function positionQuery(dfen) {
    return "dfen=" + encodeURIComponent(dfen) + (cond.ruleset ? "&ruleset=" + encodeURIComponent(cond.ruleset) : "");
  }

  // The legal moves of the line's position (after its last ply, or the game's now).
  async function loadHere(dfen, last) {
    var here = { dfen: dfen, seat: null, moves: null, last: last || null };
    cond.compose.here = here;
    renderChoice();
    var url = "/v1/positions/legal-moves?limit=2000&" + positionQuery(dfen);
    var page = await D.api("GET", url);
    var moves = page.moves || [];
    for (var pages = 0; page.next_cursor && pages < 50; pages++) {
      page = await D.api("GET", url + "&after=" + encodeURIComponent(page.next_cursor));
      moves = moves.concat(page.moves || []);
    }
    if (!composing() || cond.compose.here !== here) return;
    here.seat = page.turn ? page.turn.seat : null;
    here.moves = here.seat && cond.compose.plies.length < MAX_PLIES ? moves : [];
    selection = null;
    await go(-1);
  }

  async function showLinePosition() {
    var here = cond.compose.here;
    var dfen = here ? here.dfen : cond.dfen;
    board.setAttribute("data-current", "false");
    var line = cond.compose.plies.map(function (p) { return p.seat + " " + p.text; }).join(" ");
    board.alt = line ? T("js-cond-board", { line: line }) : T("js-board-now", { text: describe() });
    labelSquares({ pieces: dfenPieces(dfen) });
    renderChoice();
    renderConditional();
    var url = "/v1/positions/board.svg?" + positionQuery(dfen) + (here && here.last ? "&last=" + encodeURIComponent(here.last) : "");
    await new Promise(function (resolve) {
      board.setAttribute("data-ready", "false");
      if (board.getAttribute("src") === url && board.complete) { resolve(true); return; }
      board.onload = function () { resolve(true); };
      board.onerror = function () { resolve(false); };
      board.src = url;
    });
    board.setAttribute("data-dfen", dfen);
    board.setAttribute("data-ready", "true");
  }

  async function startComposing() {
    if (!cond || composing()) return;
    showMessage("");
    selection = null;
    cond.compose = { plies: [], here: null };
    renderConditional();
    try {
      await loadHere(cond.dfen, null);
      focusBoard();
    } catch (error) {
      showMessage(T("js-cond-position-failed", { error: error.message }), "error");
    }
  }

  function focusBoard() {
    var first = grid.querySelector("button.sq.movable") || grid.querySelector('button.sq[tabindex="0"]');
    if (!first) return;
    Array.prototype.forEach.call(grid.querySelectorAll("button.sq"), function (b) { b.setAttribute("tabindex", "-1"); });
    first.setAttribute("tabindex", "0");
    first.focus();
  }

  function stopComposing() {
    if (!cond) return;
    cond.compose = null;
    selection = null;
    renderConditional();
    go(-1);
  }

  async function addPly(text) {
    if (!composing() || busy) return;
    var here = cond.compose.here;
    if (!here || !here.seat) return;
    busy = true;
    confirmButton.disabled = true;
    try {
      var view = await D.api("POST", "/v1/positions/play", { dfen: here.dfen, ruleset: cond.ruleset || null, move: text });
      busy = false;
      if (!composing()) return;
      cond.compose.plies.push({ seat: here.seat, text: view.played.text, dfen: view.dfen });
      textInput.value = "";
      showMessage("");
      await loadHere(view.dfen, view.played.text);
      var last = cond.compose.plies[cond.compose.plies.length - 1];
      if (last.seat === cond.seat) document.getElementById("cond-add").focus();
      else focusBoard();
    } catch (error) {
      busy = false;
      selection = null;
      renderChoice();
      showMessage(T("js-cond-ply-refused", { move: text, error: error.message }), "error");
    }
  }

  async function undoPly() {
    if (!composing() || busy || !cond.compose.plies.length) return;
    cond.compose.plies.pop();
    var last = cond.compose.plies[cond.compose.plies.length - 1];
    await loadHere(last ? last.dfen : cond.dfen, last ? last.text : null);
    document.getElementById(cond.compose.plies.length ? "cond-undo" : "cond-stop").focus();
  }

  function addLine() {
    if (!composing()) return;
    var line = cond.compose.plies.map(function (p) { return p.seat + " " + p.text; });
    if (!line.length || line[line.length - 1].slice(0, 1) !== cond.seat) return;
    var known = cond.draft.some(function (l) { return startsWith(l, line); });
    if (!known) {
      cond.draft = cond.draft.filter(function (l) { return !startsWith(line, l); });
      cond.draft.push(line);
      cond.dirty = true;
    }
    showMessage(T(known ? "js-cond-line-known" : "js-cond-line-added", { line: line.join(" ") }), known ? "info" : "ok");
    stopComposing();
    document.getElementById("cond-save").focus();
  }

  function pruneBranch(path) {
    if (!cond) return;
    cond.draft = cond.draft.filter(function (l) { return !startsWith(l, path); });
    cond.dirty = true;
    showMessage(T("js-cond-removed", { line: path.join(" ") }), "info");
    renderConditional();
    document.getElementById("cond-save").focus();
  }

  // Why the server refused a tree, in plain words.
  function conditionalError(error) {
    var problem = error.problem || {};
    var type = String(problem.type || "");
    if (error.status === 412 || /version-conflict/.test(type)) {
      return T("js-cond-stale", { version: problem.current_version || "?" });
    }
    var found = /^line (\d+), ply (\d+): (.*)$/.exec(error.message) || /^line (\d+)(): (.*)$/.exec(error.message);
    if (error.status === 400 && found) {
      return found[2] ? T("js-cond-bad-ply", { line: found[1], ply: found[2], error: found[3] })
        : T("js-cond-bad-line", { line: found[1], error: found[3] });
    }
    return T("js-cond-failed", { error: error.message });
  }

  async function saveConditional() {
    if (!cond || busy) return;
    busy = true;
    renderConditional();
    var path = api + "/seats/" + cond.seat + "/conditional-moves";
    try {
      var stored;
      if (cond.draft.length) {
        stored = await D.api("PUT", path, { lines: cond.draft.map(function (l) { return l.join(" "); }) },
          { "If-Match": '"' + cond.version + '"' });
      } else {
        await D.api("DELETE", path);
        stored = { base_version: null, lines: [] };
      }
      cond.stored = stored;
      cond.draft = (stored.lines || []).map(plies);
      cond.dirty = false;
      var n = cond.draft.length;
      showMessage(T(n === 0 ? "js-cond-cleared" : n === 1 ? "js-cond-saved-one" : "js-cond-saved-many", { lines: n }), "ok");
    } catch (error) {
      showMessage(conditionalError(error), "error");
    }
    busy = false;
    renderConditional();
  }

  async function clearConditional() {
    if (!cond || busy) return;
    busy = true;
    try {
      await D.api("DELETE", api + "/seats/" + cond.seat + "/conditional-moves");
      cond.stored = { base_version: null, lines: [] };
      cond.draft = [];
      cond.dirty = false;
      showMessage(T("js-cond-cleared"), "ok");
    } catch (error) {
      showMessage(conditionalError(error), "error");
    }
    busy = false;
    renderConditional();
    document.getElementById("cond-new").focus();
  }

  function startConditional() {
    document.getElementById("cond-new").addEventListener("click", startComposing);
    document.getElementById("cond-add").addEventListener("click", addLine);
    document.getElementById("cond-undo").addEventListener("click", undoPly);
    document.getElementById("cond-stop").addEventListener("click", function () {
      stopComposing();
      document.getElementById("cond-new").focus();
    });
    document.getElementById("cond-save").addEventListener("click", saveConditional);
    document.getElementById("cond-clear").addEventListener("click", clearConditional);
  }

  // ---- loading ----------------------------------------------------------------------

  async function allLegalMoves() {
    var moves = [];
    var url = api + "/legal-moves?limit=2000";
    var page = await D.api("GET", url);
    var version = page.version;
    moves = moves.concat(page.moves);
    while (page.next_cursor) {
      page = await D.api("GET", url + "&after=" + encodeURIComponent(page.next_cursor));
      moves = moves.concat(page.moves);
    }
    return { version: version, moves: moves };
  }

  async function allEvents() {
    var events = [];
    var after = null;
    for (var pages = 0; pages < 10000; pages++) {
      var page = await D.api("GET", api + "/events?limit=100" + (after ? "&after=" + encodeURIComponent(after) : ""));
      events = events.concat(page.items || []);
      after = page.next_cursor;
      if (!after || !(page.items || []).length) break;
    }
    return events;
  }

  function labelOf(event, plies) {
    var p = event.payload || {};
    switch (event.kind) {
      case "move_played": return D.seatLabel(p.seat) + " " + (p.text || "");
      case "resigned": return T("js-resigns", { seat: D.seatLabel(p.seat) });
      case "timed_out": return T("js-timed-out", { seat: D.seatLabel(p.seat) });
      case "ended": return p.result && p.result.reason === "draw_agreed" ? T("js-draw-agreed") : null;
      default: return null;
    }
  }

  function renderList(events) {
    steps = [];
    var plies = 0;
    var start = null;
    events.forEach(function (e) {
      var label = labelOf(e, plies);
      if (label === null) return;
      if (start === null) start = Math.max(1, e.seq - 1);
      if (e.kind === "move_played") plies += 1;
      steps.push({ version: e.seq, label: label });
    });
    steps.unshift({ version: start === null ? (current ? current.version : 1) : start, label: T("js-start") });
    list.textContent = "";
    steps.forEach(function (step, i) {
      var b = D.el("button", { type: "button", className: "step", "data-step": String(i) }, [step.label]);
      b.addEventListener("click", function () { go(i); });
      list.appendChild(D.el("li", { value: String(i) }, [b]));
    });
  }

  function renderPlayers() {
    var ul = document.getElementById("players");
    ul.textContent = "";
    var turn = current && current.turn ? current.turn.seat : null;
    (summary.seats || []).forEach(function (s) {
      var who = s.username || (s.bot ? T("js-computer-level", { level: s.bot.level }) : T("js-free-seat"));
      var active = (current ? current.active_seats : summary.seats_in_play || []).indexOf(s.seat) >= 0;
      var li = D.el("li", { className: "player seat-" + s.seat + (s.seat === turn ? " to-move" : "") + (active ? "" : " out"), "data-seat": s.seat }, [
        D.el("span", { className: "glyph", "aria-hidden": "true", text: D.SEAT_GLYPHS[s.seat] }),
        " " + T("js-seat-player", { seat: D.seatName(s.seat), player: who }) + (s.user_id === me ? " " + T("js-you") : "") +
          (s.seat === turn ? " — " + T("js-to-move-short") : "") + (active || summary.status !== "active" ? "" : " — " + T("js-out")),
      ]);
      if (summary.status === "open" && !s.user_id && !s.bot && mySeats().length === 0) {
        var take = D.el("button", { type: "button", className: "take-seat", "data-seat": s.seat }, [T("js-take-this-seat")]);
        take.addEventListener("click", async function () {
          try {
            var body = params.get("invite") ? { invite_code: params.get("invite") } : {};
            await D.api("POST", api + "/seats/" + s.seat, body);
            await refresh();
          } catch (error) {
            showMessage(T("js-seat-failed", { error: error.message }), "error");
          }
        });
        li.appendChild(take);
      }
      ul.appendChild(li);
    });
    var deadline = "";
    if (summary.status === "active" && summary.deadline) deadline = T("js-deadline-for", { seat: D.seatName(summary.to_move), when: D.when(summary.deadline) });
    if (summary.invite_code) deadline += (deadline ? " · " : "") + T("js-invite-link", { url: window.location.origin + "/play/" + gameId + "?invite=" + summary.invite_code });
    D.setText("deadline", deadline);
  }

  // The pending draw offer, and what I may do about it.
  function renderDraw() {
    var active = summary.status === "active" &&
      mySeats().some(function (s) { return current.active_seats.indexOf(s) >= 0; });
    var offer = current.draw_offer;
    document.getElementById("draw-row").hidden = !active;
    var waiting = offer ? offer.waiting_for.filter(function (s) { return mySeats().indexOf(s) >= 0; }) : [];
    D.setText("draw-status", offer
      ? T("js-draw-offered", { seat: D.seatName(offer.by), seats: offer.waiting_for.map(D.seatName).join(", ") })
      : "");
    document.getElementById("draw-offer").hidden = !!offer;
    document.getElementById("draw-accept").hidden = !waiting.length;
    document.getElementById("draw-decline").hidden = !offer;
  }

  async function draw(action) {
    try {
      await D.api("POST", api + "/draw-offer", { action: action });
      showMessage(T("js-draw-" + action + "-done"), "ok");
    } catch (error) {
      showMessage(T("js-draw-" + action + "-failed", { error: error.message }), "error");
    }
    refresh();
  }

  function describe() {
    if (!summary || !current) return T("js-loading");
    if (summary.status === "open") return T("js-waiting-players", { seats: (summary.open_seats || []).map(D.seatName).join(", ") });
    if (summary.status === "finished") {
      var r = summary.result || current.result;
      if (r && r.seats && r.seats.length) {
        var seats = r.seats.map(D.seatName).join(", ");
        return r.kind === "draw" ? T("js-over-draw", { seats: seats }) : T("js-over-wins", { seats: seats });
      }
      return T("js-game-over");
    }
    var t = current.turn;
    var text = T("js-ply", { ply: current.ply }) + (t ? " " + T("js-to-move", { seat: D.seatLabel(t.seat) }) : "");
    if (myTurn()) text += " " + T("js-your-move-now");
    if (current.ruler) text += " " + T("js-rules", { seat: D.seatName(current.ruler) });
    return text;
  }

  function showBoard(version, dfen) {
    var url = api + "/board.svg?at=" + version;
    return new Promise(function (resolve) {
      board.setAttribute("data-ready", "false");
      if (board.getAttribute("src") === url && board.complete) {
        resolve(true);
        return;
      }
      board.onload = function () { resolve(true); };
      board.onerror = function () { resolve(false); };
      board.src = url;
    }).then(function () {
      board.setAttribute("data-version", String(version));
      board.setAttribute("data-dfen", dfen);
      board.setAttribute("data-ready", "true");
    });
  }

  async function go(index) {
    if (!steps.length) return;
    if (index >= steps.length - 1) index = -1;
    shown = index;
    var step = index === -1 ? null : steps[Math.max(0, index)];
    var at = step ? step.version : current.version;
    counter.textContent = (index === -1 ? steps.length - 1 : index) + " / " + (steps.length - 1);
    Array.prototype.forEach.call(list.querySelectorAll("button.step"), function (b) {
      var mine = parseInt(b.getAttribute("data-step"), 10) === (index === -1 ? steps.length - 1 : index);
      if (mine) {
        b.setAttribute("aria-current", "step");
        // Scroll the list only, never the page (a phone would jump to the list).
        list.scrollTop = Math.max(0, b.offsetTop - list.clientHeight / 2);
      } else b.removeAttribute("aria-current");
    });
    if (index === -1 && composing()) {
      await showLinePosition();
      return;
    }
    var view = index === -1 ? current : await D.api("GET", api + "/state?at=" + at);
    board.setAttribute("data-current", index === -1 ? "true" : "false");
    board.alt = index === -1 ? T("js-board-now", { text: describe() }) : T("js-board-after", { step: step.label });
    labelSquares(view);
    renderChoice();
    await showBoard(at, view.dfen);
  }

  async function load() {
    summary = await D.api("GET", api);
    current = await D.api("GET", api + "/state");
    legal = null;
    if (myTurn()) {
      legal = await allLegalMoves();
      if (legal.version !== current.version) {
        // The game moved while loading: load again.
        return load();
      }
    }
    lastEvents = await allEvents();
    renderList(lastEvents);
    renderPlayers();
    D.setText("status", describe());
    var title = (summary.seats || []).map(function (s) { return s.username || (s.bot ? T("js-bot") : D.seatName(s.seat)); }).join(", ");
    D.setText("game-title", T("js-game-title", { game: gameId.slice(0, 8), players: title }));
    D.setText("rules", D.rulesText(summary));
    D.setText("talk-rules", D.talkText(summary));
    document.getElementById("resign-row").hidden = !(summary.status === "active" && mySeats().some(function (s) { return current.active_seats.indexOf(s) >= 0; }));
    textForm.hidden = !myTurn();
    renderDraw();
    await go(shown === -1 ? -1 : shown);
    try {
      await loadConditional();
    } catch (error) {
      // The panel's trouble never stops the game page.
      condPanel.hidden = true;
      showMessage(T("js-cond-load-failed", { error: error.message }), "error");
    }
  }

  // Reloads the game (again if asked meanwhile); a selection in progress is dropped
  // with a word, never silently.
  var again = false;
  async function refresh() {
    if (loading) { again = true; return loading; }
    var before = summary ? summary.version : null;
    var wasOver = !!(summary && summary.status === "finished");
    var unfinished = selection && selection.from ? selection.from + (selection.to ? "-" + selection.to : "") : null;
    loading = (async function () {
      do {
        again = false;
        try {
          await load();
        } catch (error) {
          D.setText("status", T("js-game-failed", { error: error.message }));
        }
      } while (again);
    })();
    try { await loading; } finally { loading = null; }
    // The game just ended: a notice about an action in it ("You offered a draw.") is
    // out of date; errors stay until the player reads them.
    if (!wasOver && summary && summary.status === "finished" && !message.hidden &&
        !message.classList.contains("error")) {
      showMessage("");
    }
    if (unfinished && summary && summary.version !== before) {
      selection = null;
      renderChoice();
      showMessage(T("js-cleared", { move: unfinished }), "error");
    }
  }

  function listen() {
    if (!live || !window.EventSource) return;
    var source = new EventSource(api + "/stream?after=" + (summary ? summary.version : 0));
    var onEvent = function (event) {
      var seq = parseInt(event.lastEventId, 10);
      if (!summary || !(seq > summary.version) || busy) return;
      refresh();
    };
    ["move_played", "resigned", "timed_out", "ended", "started", "seat_taken", "seat_left", "bot_seated",
      "draw_offered", "draw_accepted", "draw_declined"].forEach(function (kind) {
      source.addEventListener(kind, onEvent);
    });
    source.onmessage = onEvent;
  }

  function onKey(event) {
    var t = event.target;
    if (t && /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) return;
    if (event.key === "Escape" && selection) { selection = null; renderChoice(); return; }
    var i = shown === -1 ? steps.length - 1 : shown;
    var keys = {
      Home: function () { go(0); }, End: function () { go(-1); },
    };
    if (event.altKey && event.key === "ArrowLeft") keys.x = function () { go(Math.max(0, i - 1)); };
    if (event.altKey && event.key === "ArrowRight") keys.x = function () { go(i + 1); };
    var f = keys.x || (event.altKey || event.ctrlKey || event.metaKey ? null : keys[event.key]);
    if (f) { event.preventDefault(); f(); }
  }

  function start() {
    buildGrid();
    document.getElementById("first").addEventListener("click", function () { go(0); });
    document.getElementById("prev").addEventListener("click", function () { go(Math.max(0, (shown === -1 ? steps.length - 1 : shown) - 1)); });
    document.getElementById("next").addEventListener("click", function () { go((shown === -1 ? steps.length - 1 : shown) + 1); });
    document.getElementById("last").addEventListener("click", function () { go(-1); });
    document.getElementById("cancel").addEventListener("click", function () { selection = null; showMessage(""); renderChoice(); });
    confirmButton.addEventListener("click", function () {
      if (selection && selection.candidates.length === 1) {
        if (composing()) addPly(selection.candidates[0].text);
        else send(selection.candidates[0].text);
      }
    });
    textForm.addEventListener("submit", function (event) {
      event.preventDefault();
      var text = textInput.value.trim();
      if (!text) { showMessage(T("js-type-move"), "error"); return; }
      var pickable = picking();
      if (pickable) {
        var found = pickable.filter(function (m) { return m.text.toUpperCase() === text.toUpperCase(); });
        if (found.length) text = found[0].text;
      }
      if (composing()) addPly(text);
      else send(text);
    });
    ["offer", "accept", "decline"].forEach(function (action) {
      document.getElementById("draw-" + action).addEventListener("click", function () { draw(action); });
    });
    var resignConfirm = document.getElementById("resign-confirm");
    document.getElementById("resign").addEventListener("click", function () {
      resignConfirm.hidden = !resignConfirm.hidden;
      if (!resignConfirm.hidden) resignConfirm.focus();
    });
    resignConfirm.addEventListener("click", async function () {
      resignConfirm.hidden = true;
      try {
        await D.api("POST", api + "/resignation", {});
        showMessage(T("js-resigned"), "ok");
      } catch (error) {
        showMessage(T("js-resign-failed", { error: error.message }), "error");
      }
      refresh();
    });
    startConditional();
    document.addEventListener("keydown", onKey);
    refresh().then(listen);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
