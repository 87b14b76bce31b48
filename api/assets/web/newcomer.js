// The newcomer's pages (see api/src/routes/web/learn.rs): the welcome page's live games and
// leaderboard top, the lessons of /learn (each move checked by the engine through the
// analysis board, POST /v1/positions/play, then against the lesson's answer; progress in
// localStorage), "play now" after signing up, and the pointers of a first game page.
// Every word shown is a message (js-* of pages.ftl) or written by the server in the page.
"use strict";

(function () {
  var MESSAGES = window.DjambiMessages || {};
  var PROGRESS_KEY = "djambi-lessons-done";
  var FIRST_GAME_KEY = "djambi-first-game-seen";

  function t(id, args) {
    var text = MESSAGES[id];
    if (text === undefined) return id;
    return text.replace(/\{\$([A-Za-z0-9_-]+)\}/g, function (whole, name) {
      return args && args[name] !== undefined ? String(args[name]) : whole;
    });
  }

  function csrfToken() {
    var meta = document.querySelector("meta[name=csrf-token]");
    return meta ? meta.getAttribute("content") : "";
  }

  // A JSON request to the API; rejects with the problem's detail as the message.
  async function call(method, url, body) {
    var init = { method: method, headers: { Accept: "application/json" }, credentials: "same-origin" };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
      if (csrfToken()) init.headers["X-CSRF-Token"] = csrfToken();
    }
    var response = await fetch(url, init);
    var text = await response.text();
    var data = null;
    try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
    if (!response.ok) {
      var error = new Error((data && (data.detail || data.title)) || String(response.status));
      error.status = response.status;
      error.problem = data;
      throw error;
    }
    return data;
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "className") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }

  function seatName(letter) { return MESSAGES["seat-" + letter] || String(letter || "?"); }

  // ---- the welcome page ---------------------------------------------------------------

  // A public game being played: its board, redrawn at each new event of its stream.
  function liveGame(game) {
    var names = (game.seats || []).map(function (s) {
      return s.username ? seatName(s.seat) + ": " + s.username : null;
    }).filter(Boolean).join(", ");
    var img = el("img", {
      src: "/v1/games/" + game.id + "/board.svg?at=" + game.version,
      width: "298", height: "340", alt: t("js-live-board", { players: names }),
      "data-version": String(game.version), className: "live-board",
    });
    var link = el("a", { href: "/games/" + game.id }, [t("js-live-watch")]);
    var item = el("li", { className: "live-game card", "data-game-id": game.id }, [
      img, el("p", {}, [names]), el("p", {}, [link]),
    ]);
    if (window.EventSource) {
      var source = new EventSource("/v1/games/" + game.id + "/stream?after=" + game.version);
      var onEvent = function (event) {
        var version = parseInt(event.lastEventId, 10);
        if (!(version > parseInt(img.getAttribute("data-version"), 10))) return;
        img.setAttribute("data-version", String(version));
        img.src = "/v1/games/" + game.id + "/board.svg?at=" + version;
      };
      ["move_played", "resigned", "timed_out", "ended", "started", "bot_seated", "seat_taken"].forEach(function (kind) {
        source.addEventListener(kind, onEvent);
      });
      source.onmessage = onEvent;
    }
    return item;
  }

  async function welcomePage() {
    var list = document.getElementById("live-games");
    var status = document.getElementById("live-status");
    try {
      var page = await call("GET", "/v1/games?status=active&limit=4");
      list.textContent = "";
      page.items.forEach(function (g) { list.appendChild(liveGame(g)); });
      status.textContent = page.items.length ? t("js-live-count", { count: page.items.length }) : t("js-live-none");
    } catch (error) {
      status.textContent = t("js-live-failed", { error: error.message });
    }
    var top = document.getElementById("top-players");
    try {
      var board = await call("GET", "/v1/leaderboard?limit=5");
      board.items.forEach(function (p) {
        var link = el("a", { href: "/players/" + encodeURIComponent(p.username) }, [p.username]);
        top.appendChild(el("li", {}, [link, " ", t("js-top-rating", { rating: p.rating.rating.toFixed(1), games: p.games })]));
      });
      if (!board.items.length) top.appendChild(el("li", {}, [t("js-top-none")]));
    } catch (error) {
      top.appendChild(el("li", {}, [t("js-live-failed", { error: error.message })]));
    }
  }

  // ---- the lessons --------------------------------------------------------------------

  function doneLessons() {
    try {
      var list = JSON.parse(window.localStorage.getItem(PROGRESS_KEY) || "[]");
      return Array.isArray(list) ? list : [];
    } catch (e) {
      return [];
    }
  }

  function saveDone(list) {
    try { window.localStorage.setItem(PROGRESS_KEY, JSON.stringify(list)); } catch (e) { /* private mode: not kept */ }
  }

  // The parts of a move's text (either case, either separator), or null.
  function parseMove(text) {
    var m = /^([A-I][1-9])[-X]([A-I][1-9])(?:X([A-I][1-9]))?(?:\/([A-I][1-9]))?(?:>([A-I][1-9]))?$/.exec(text.trim().toUpperCase());
    return m ? { from: m[1], to: m[2], victim: m[3] || "", exit: m[4] || "", place: m[5] || "" } : null;
  }

  // Whether a move is one the lesson accepts: each part "" (absent), "*" (any) or "A1|B2".
  function accepted(section, move) {
    return ["from", "to", "victim", "exit", "place"].every(function (part) {
      var rule = section.getAttribute("data-" + part) || "";
      var value = move[part];
      if (rule === "") return value === "";
      if (value === "") return false;
      return rule === "*" || rule.split("|").indexOf(value) >= 0;
    });
  }

  function showProgress() {
    var done = doneLessons();
    var sections = document.querySelectorAll("section.lesson");
    var count = 0;
    Array.prototype.forEach.call(sections, function (section) {
      var id = section.getAttribute("data-lesson");
      var finished = done.indexOf(id) >= 0;
      if (finished) count++;
      section.classList.toggle("finished", finished);
      document.getElementById("lesson-" + id + "-state").textContent = finished ? t("js-lesson-finished") : "";
      document.getElementById("lesson-" + id + "-done").hidden = !finished;
    });
    document.getElementById("learn-progress").textContent = t("js-lesson-progress", { done: count, total: sections.length });
  }

  function lesson(section) {
    var id = section.getAttribute("data-lesson");
    var form = document.getElementById("lesson-" + id + "-form");
    var input = document.getElementById("lesson-" + id + "-move");
    var result = document.getElementById("lesson-" + id + "-result");
    var hint = document.getElementById("lesson-" + id + "-hint");
    var button = document.getElementById("lesson-" + id + "-check");
    var wrong = function (text) {
      result.textContent = text;
      result.className = "lesson-result bad";
      hint.hidden = false;
      input.setAttribute("aria-invalid", "true");
    };
    form.addEventListener("submit", async function (event) {
      event.preventDefault();
      var text = input.value.trim();
      var move = parseMove(text);
      if (!move) {
        wrong(t("js-lesson-unreadable", { move: text }));
        return;
      }
      button.disabled = true;
      result.className = "lesson-result";
      result.textContent = t("js-lesson-checking");
      try {
        // The engine decides whether the move is legal in the lesson's position.
        await call("POST", "/v1/positions/play", { dfen: section.getAttribute("data-dfen"), move: text });
      } catch (error) {
        button.disabled = false;
        if (error.status && error.status < 500 && error.status !== 429) {
          wrong(t("js-lesson-illegal", { move: text, detail: error.message }));
        } else {
          result.className = "lesson-result bad";
          result.textContent = t("js-lesson-failed", { error: error.message });
        }
        return;
      }
      button.disabled = false;
      if (!accepted(section, move)) {
        wrong(t("js-lesson-wrong", { move: text }));
        return;
      }
      input.removeAttribute("aria-invalid");
      hint.hidden = true;
      result.className = "lesson-result good";
      result.textContent = t("js-lesson-right", { move: text });
      var done = doneLessons();
      if (done.indexOf(id) < 0) done.push(id);
      saveDone(done);
      showProgress();
    });
  }

  function learnPage() {
    Array.prototype.forEach.call(document.querySelectorAll("section.lesson"), lesson);
    document.getElementById("learn-reset").addEventListener("click", function () {
      saveDone([]);
      Array.prototype.forEach.call(document.querySelectorAll(".lesson-result"), function (p) { p.textContent = ""; });
      Array.prototype.forEach.call(document.querySelectorAll(".lesson-hint"), function (p) { p.hidden = true; });
      showProgress();
    });
    showProgress();
  }

  // ---- play now, and a first game -------------------------------------------------------

  // Creates a game against three computer players of `level` and answers its page.
  async function playNow(level) {
    var n = parseInt(level, 10) || 2;
    var game = await call("POST", "/v1/games", {
      seats: 4, seat: "R",
      bots: [{ seat: "B", level: n }, { seat: "Y", level: n }, { seat: "G", level: n }],
    });
    return "/play/" + game.id;
  }

  // The first game page this browser opens: where the rules are, how to see a piece's moves.
  function firstGame() {
    var seen = false;
    try { seen = window.localStorage.getItem(FIRST_GAME_KEY) === "1"; } catch (e) { seen = false; }
    if (seen) return;
    var play = document.getElementById("play");
    if (!play) return;
    var close = el("button", { type: "button", id: "first-game-close" }, [t("js-first-game-close")]);
    var note = el("section", { className: "message first-game", id: "first-game", "aria-labelledby": "first-game-title" }, [
      el("h2", { id: "first-game-title" }, [t("js-first-game-title")]),
      el("p", {}, [t("js-first-game-text")]),
      el("p", {}, [el("a", { href: "/rules", id: "first-game-rules" }, [t("js-first-game-rules")]), " ",
        el("a", { href: "/learn" }, [t("js-first-game-learn")]), " ", close]),
    ]);
    close.addEventListener("click", function () {
      try { window.localStorage.setItem(FIRST_GAME_KEY, "1"); } catch (e) { /* not kept */ }
      note.remove();
    });
    // After the game's header (its title, whose turn), before the board.
    var header = play.querySelector(".play-header");
    if (header) header.insertAdjacentElement("afterend", note);
    else play.insertBefore(note, play.firstChild);
  }

  // A signed-in player's "play now" (on my games).
  function homePlayNow() {
    var button = document.getElementById("playnow-start");
    if (!button) return;
    button.addEventListener("click", async function () {
      button.disabled = true;
      document.getElementById("playnow-error").textContent = "";
      try {
        window.location.assign(await playNow(document.getElementById("playnow-level").value));
      } catch (error) {
        button.disabled = false;
        document.getElementById("playnow-error").textContent = t("js-playnow-failed", { error: error.message });
      }
    });
  }

  window.DjambiNewcomer = { playNow: playNow, parseMove: parseMove };

  function start() {
    var page = document.body.getAttribute("data-page");
    if (page === "welcome") welcomePage();
    if (page === "learn") learnPage();
    if (page === "play") firstGame();
    if (page === "home") homePlayNow();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
