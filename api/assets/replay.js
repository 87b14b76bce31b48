// The replay page of a game (GET /games/{id}): steps through the game's history.
// Plain JavaScript, no build step, no inline script (the page is served with
// Content-Security-Policy script-src 'self').
//
// It reads the game id from <main data-game-id>, pages through
// GET /v1/games/{id}/events (items + next_cursor) to list the actions that change the
// position, shows GET /v1/games/{id}/board.svg?at=VERSION for the chosen step, and puts
// on the <img id="board"> element, for tools and tests:
//   data-step     the step shown: 0 for the start, n after the n-th action
//   data-steps    the number of the last step
//   data-version  the event version drawn (the `at` of board.svg and state)
//   data-dfen     the DFEN of GET /v1/games/{id}/state?at=VERSION
//   data-status   its `status`: open (waiting for players), active or finished
//   data-ready    "true" once the picture and the DFEN of this step are both loaded
//   data-explore  while exploring, how many moves were tried from the step (else absent)
// "Explore from here" plays other moves from the step shown on the API's analysis board
// (GET /v1/positions/legal-moves, POST /v1/positions/play, GET /v1/positions/board.svg):
// nothing is stored, and leaving it (or stepping) shows the game again.
// The URL hash is the step (#12); opening the page with a hash starts there, without one
// at the last step. Keys: ArrowLeft, ArrowRight, Home, End.
(function () {
  "use strict";

  // The page's messages (/assets/i18n/{lang}.js, from locales/<lang>/pages.ftl):
  // t("js-…", {name: value}) fills each {$name}.
  function t(id, args) {
    var text = (window.DjambiMessages || {})[id];
    if (text === undefined) return id;
    return text.replace(/\{\$([A-Za-z0-9_-]+)\}/g, function (whole, name) {
      return args && args[name] !== undefined ? String(args[name]) : whole;
    });
  }

  var root = document.getElementById("replay");
  if (!root) return;
  var gameId = root.getAttribute("data-game-id");
  var api = "/v1/games/" + encodeURIComponent(gameId);
  var board = document.getElementById("board");
  var list = document.getElementById("move-list");
  var status = document.getElementById("status");
  var counter = document.getElementById("counter");
  var caption = document.getElementById("position-caption");
  var buttons = {
    first: document.getElementById("first"),
    prev: document.getElementById("prev"),
    next: document.getElementById("next"),
    last: document.getElementById("last"),
  };

  var ex = {
    start: document.getElementById("explore-start"),
    panel: document.getElementById("explore-panel"),
    select: document.getElementById("explore-move"),
    play: document.getElementById("explore-play"),
    back: document.getElementById("explore-back"),
    leave: document.getElementById("explore-leave"),
    line: document.getElementById("explore-line"),
  };
  // The state of the step shown (GET …/state?at=), once loaded.
  var shownView = null;
  // While exploring: { step, ruleset, line: [{ dfen, text, seat }] }, line[0] being the
  // step's position and each next one the position after the move `text` of `seat`.
  var explore = null;

  // steps[i] = { version, label, seat }; steps[0] is the start.
  var steps = [];
  var current = -1;
  // The result of the game's `ended` event, if any: the last action's position is drawn
  // at that action's version, before the `ended` event that follows it.
  var finalResult = null;
  // Bumped on every step change, so that late answers for an old step are ignored.
  var generation = 0;

  function seatName(letter) {
    var name = (window.DjambiMessages || {})["seat-" + letter];
    return name || String(letter || "?");
  }

  function setStatus(text) {
    status.textContent = text;
  }

  async function getJson(url) {
    var response = await fetch(url, { headers: { accept: "application/json" } });
    var body = null;
    try {
      body = await response.json();
    } catch (e) {
      body = null;
    }
    if (!response.ok) {
      var detail = body && (body.detail || body.title);
      throw new Error(detail || t("js-http-error", { status: response.status, url: url }));
    }
    return body;
  }

  // Every event of the game, following the pages' next_cursor.
  async function allEvents() {
    var events = [];
    var after = null;
    for (var pages = 0; pages < 10000; pages++) {
      var url = api + "/events?limit=100" + (after ? "&after=" + encodeURIComponent(after) : "");
      var page = await getJson(url);
      events = events.concat(page.items || []);
      after = page.next_cursor;
      if (!after || !(page.items || []).length) break;
    }
    return events;
  }

  // The label of an event that changes the position, or null for the others: moves,
  // resignations, timeouts, and the agreed draw (an `ended` event with reason
  // draw_agreed); a plain `ended` after the deciding move changes nothing.
  function labelOf(event, plies) {
    var p = event.payload || {};
    switch (event.kind) {
      case "move_played":
        return plies + 1 + ". " + (p.seat || "?") + " " + (p.text || "");
      case "resigned":
        return t("js-resigns", { seat: seatName(p.seat) });
      case "timed_out":
      case "timeout":
        return t("js-timed-out", { seat: seatName(p.seat) });
      case "draw_agreed":
        return t("js-draw-agreed");
      case "ended":
        return p.result && p.result.reason === "draw_agreed" ? t("js-draw-agreed") : null;
      default:
        return null;
    }
  }

  function buildSteps(events) {
    var result = [];
    var plies = 0;
    var startVersion = null;
    var lastVersion = 0;
    events.forEach(function (event) {
      lastVersion = Math.max(lastVersion, event.seq);
      if (event.kind === "ended" && event.payload && event.payload.result) {
        finalResult = event.payload.result;
      }
      var label = labelOf(event, plies);
      if (label === null) return;
      if (startVersion === null) startVersion = Math.max(1, event.seq - 1);
      var ply = null;
      if (event.kind === "move_played") ply = plies += 1;
      result.push({ version: event.seq, label: label, seat: (event.payload || {}).seat, ply: ply });
    });
    if (startVersion === null) startVersion = Math.max(1, lastVersion);
    result.unshift({ version: startVersion, label: t("js-start"), seat: null });
    return result;
  }

  // The engine's judgements of the moves, from the page's analysis section, by ply.
  function judgements() {
    var out = {};
    Array.prototype.forEach.call(document.querySelectorAll("#analysis-judged li[data-ply]"), function (li) {
      out[li.getAttribute("data-ply")] = li.getAttribute("data-judgement");
    });
    return out;
  }

  function renderList() {
    list.textContent = "";
    var judged = judgements();
    steps.forEach(function (step, i) {
      var item = document.createElement("li");
      item.value = i;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "step";
      button.setAttribute("data-step", String(i));
      button.textContent = step.label;
      button.addEventListener("click", function () {
        go(i);
      });
      item.appendChild(button);
      var judgement = step.ply !== null && step.ply !== undefined ? judged[String(step.ply)] : null;
      if (judgement) {
        var mark = document.createElement("span");
        mark.className = "judgement judged-" + judgement;
        mark.textContent = " " + t("js-judgement-" + judgement);
        item.appendChild(mark);
      }
      list.appendChild(item);
    });
    board.setAttribute("data-steps", String(steps.length - 1));
  }

  function stepFromHash() {
    var match = /^#(\d+)$/.exec(window.location.hash);
    return match ? parseInt(match[1], 10) : null;
  }

  function go(index) {
    if (!steps.length) return;
    if (explore) {
      // Leaving the explored position: the step is drawn again even when it is the same.
      stopExploring();
      current = -1;
    }
    index = Math.max(0, Math.min(steps.length - 1, index));
    if (index === current) return;
    current = index;
    var mine = ++generation;
    var step = steps[index];
    board.setAttribute("data-ready", "false");
    board.setAttribute("data-step", String(index));
    board.setAttribute("data-version", String(step.version));
    board.setAttribute("data-dfen", "");
    shownView = null;
    ex.start.disabled = true;
    if (window.location.hash !== "#" + index) {
      history.replaceState(null, "", "#" + index);
    }
    counter.textContent = index + " / " + (steps.length - 1);
    caption.textContent = index === 0 ? t("js-starting-position") : t("js-after", { step: step.label });
    buttons.first.disabled = buttons.prev.disabled = index === 0;
    buttons.next.disabled = buttons.last.disabled = index === steps.length - 1;
    Array.prototype.forEach.call(list.querySelectorAll("button.step"), function (b) {
      if (b.getAttribute("data-step") === String(index)) {
        b.setAttribute("aria-current", "step");
        b.scrollIntoView({ block: "nearest" });
      } else {
        b.removeAttribute("aria-current");
      }
    });

    var imageLoaded = new Promise(function (resolve) {
      board.onload = function () {
        resolve(true);
      };
      board.onerror = function () {
        resolve(false);
      };
    });
    board.alt = index === 0 ? t("js-board-at-start") : t("js-board-after", { step: step.label });
    board.src = api + "/board.svg?at=" + step.version;
    var state = getJson(api + "/state?at=" + step.version);
    Promise.all([imageLoaded, state])
      .then(function (results) {
        if (mine !== generation) return;
        var view = results[1];
        board.setAttribute("data-dfen", view.dfen);
        board.setAttribute("data-status", view.status || "");
        shownView = view;
        ex.start.disabled = view.status === "open" || !view.turn;
        if (view.status === "open") {
          caption.textContent = t("js-before-start");
          board.alt = t("js-board-before-start");
        }
        setStatus(describe(view, index === steps.length - 1) +
          (results[0] ? "" : " " + t("js-picture-failed")));
        board.setAttribute("data-ready", "true");
      })
      .catch(function (error) {
        if (mine !== generation) return;
        setStatus(t("js-position-failed", { error: error.message }));
      });
  }

  function positionQuery(dfen) {
    return "dfen=" + encodeURIComponent(dfen) +
      (explore.ruleset ? "&ruleset=" + encodeURIComponent(explore.ruleset) : "");
  }

  function startExploring() {
    if (!shownView || explore) return;
    explore = { step: current, ruleset: shownView.ruleset || "", line: [{ dfen: shownView.dfen }] };
    ex.panel.hidden = false;
    ex.start.disabled = true;
    showExplored();
    ex.select.focus();
  }

  function stopExploring() {
    explore = null;
    ex.panel.hidden = true;
    ex.line.textContent = "";
    board.removeAttribute("data-explore");
  }

  function leaveExploring() {
    var step = explore ? explore.step : current;
    stopExploring();
    current = -1;
    go(step);
    ex.start.focus();
  }

  // Draws the explored position and lists its legal moves.
  function showExplored() {
    var mine = ++generation;
    var here = explore.line[explore.line.length - 1];
    var tried = explore.line.length - 1;
    board.setAttribute("data-ready", "false");
    board.setAttribute("data-explore", String(tried));
    board.setAttribute("data-dfen", here.dfen);
    ex.line.textContent = "";
    explore.line.slice(1).forEach(function (played) {
      var item = document.createElement("li");
      item.textContent = played.seat + " " + played.text;
      ex.line.appendChild(item);
    });
    ex.back.disabled = tried === 0;
    ex.play.disabled = true;
    ex.select.textContent = "";
    var base = steps[explore.step];
    caption.textContent = t("js-explore-caption", { count: tried, step: base.label });
    board.alt = caption.textContent;
    var imageLoaded = new Promise(function (resolve) {
      board.onload = function () { resolve(true); };
      board.onerror = function () { resolve(false); };
    });
    board.src = "/v1/positions/board.svg?" + positionQuery(here.dfen) +
      (here.text ? "&last=" + encodeURIComponent(here.text) : "");
    var moves = getJson("/v1/positions/legal-moves?limit=2000&" + positionQuery(here.dfen));
    Promise.all([imageLoaded, moves])
      .then(function (results) {
        if (mine !== generation || !explore) return;
        var view = results[1];
        (view.moves || []).forEach(function (mv) {
          var option = document.createElement("option");
          option.value = mv.text;
          option.textContent = mv.text;
          ex.select.appendChild(option);
        });
        ex.play.disabled = !(view.moves || []).length;
        var text = view.turn && view.turn.seat
          ? t("js-explore-moves", { seat: seatName(view.turn.seat), count: view.total })
          : t("js-explore-over");
        setStatus(text + (results[0] ? "" : " " + t("js-picture-failed")));
        board.setAttribute("data-ready", "true");
      })
      .catch(function (error) {
        if (mine !== generation) return;
        setStatus(t("js-position-failed", { error: error.message }));
      });
  }

  async function playExplored() {
    if (!explore || !ex.select.value) return;
    var here = explore.line[explore.line.length - 1];
    var body = { dfen: here.dfen, move: ex.select.value, ruleset: explore.ruleset || null };
    try {
      var response = await fetch("/v1/positions/play", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(body),
      });
      var view = await response.json();
      if (!response.ok) throw new Error(view.detail || view.title);
      if (!explore) return;
      explore.line.push({ dfen: view.dfen, text: view.played.text, seat: seatToMove(here.dfen) });
      showExplored();
      ex.select.focus();
    } catch (error) {
      setStatus(t("js-position-failed", { error: error.message }));
    }
  }

  // The seat to move in a DFEN: the first letter of its second field ("R", "R*B").
  function seatToMove(dfen) {
    return (dfen.split(" ")[1] || "?").charAt(0);
  }

  function takeBack() {
    if (!explore || explore.line.length < 2) return;
    explore.line.pop();
    showExplored();
    ex.select.focus();
  }

  // The seats in play nobody holds yet (a game waiting for players).
  function freeSeats(view) {
    return (view.active_seats || []).filter(function (seat) {
      return !(view.players || {})[seat] && !(view.bots || {})[seat];
    });
  }

  function describe(view, last) {
    if (view.status === "open") {
      var free = freeSeats(view);
      return free.length ? t("js-not-started-free", { seats: free.map(seatName).join(", ") }) : t("js-not-started");
    }
    var text = t("js-ply", { ply: view.ply }) + " ";
    var result = view.result || (last && !view.turn ? finalResult : null);
    if (view.turn && view.turn.seat) {
      text += view.turn.bonus_after
        ? t("js-to-move-bonus", { seat: seatName(view.turn.seat), after: seatName(view.turn.bonus_after) })
        : t("js-to-move", { seat: seatName(view.turn.seat) });
    } else if (result && (result.seats || []).length) {
      var seats = result.seats.map(seatName).join(", ");
      text += result.kind === "draw" ? t("js-draw-between", { seats: seats }) : t("js-wins", { seats: seats });
    } else {
      text += t("js-game-over");
    }
    if (view.ruler) text += " " + t("js-rules", { seat: seatName(view.ruler) });
    return text;
  }

  function onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    var moves = {
      ArrowLeft: function () { go(current - 1); },
      ArrowRight: function () { go(current + 1); },
      Home: function () { go(0); },
      End: function () { go(steps.length - 1); },
    };
    if (moves[event.key]) {
      event.preventDefault();
      moves[event.key]();
    }
  }

  async function start() {
    buttons.first.addEventListener("click", function () { go(0); });
    buttons.prev.addEventListener("click", function () { go(current - 1); });
    buttons.next.addEventListener("click", function () { go(current + 1); });
    buttons.last.addEventListener("click", function () { go(steps.length - 1); });
    document.addEventListener("keydown", onKey);
    ex.start.addEventListener("click", startExploring);
    ex.play.addEventListener("click", playExplored);
    ex.back.addEventListener("click", takeBack);
    ex.leave.addEventListener("click", leaveExploring);
    window.addEventListener("hashchange", function () {
      var wanted = stepFromHash();
      if (wanted !== null) go(wanted);
    });
    try {
      steps = buildSteps(await allEvents());
    } catch (error) {
      setStatus(t("js-game-failed", { error: error.message }));
      return;
    }
    renderList();
    var wanted = stepFromHash();
    go(wanted === null ? steps.length - 1 : wanted);
  }

  start();
})();
