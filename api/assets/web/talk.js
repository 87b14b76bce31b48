// The table-talk panel of the game page (issue 21): the conversation at the whole table
// and one thread per private conversation, unread counts, a form to write (Enter sends,
// Shift+Enter a new line), new messages fetched from GET /v1/games/{id}/messages?after=<seq>
// when the player's notification stream says one came (spectators look every 15 s). Texts are shown as plain text (textContent),
// never as markup.
(function () {
  "use strict";

  var panel = document.getElementById("talk");
  if (!panel || !window.Djambi) return;
  var D = window.Djambi;
  var T = D.t;
  var gameId = panel.getAttribute("data-game-id");
  var api = "/v1/games/" + encodeURIComponent(gameId);
  var me = document.body.getAttribute("data-user-id");
  var live = new URLSearchParams(window.location.search).get("live") !== "0";

  var tabs = document.getElementById("talk-tabs");
  var log = document.getElementById("talk-log");
  var form = document.getElementById("talk-form");
  var input = document.getElementById("talk-text");
  var note = document.getElementById("talk-note");

  var messages = [];      // every message seen, oldest first
  var after = 0;          // the newest seq fetched
  var thread = "table";   // "table" or the other seats' letters, sorted ("B", "BY")
  var read = {};          // thread -> the newest seq read there
  var mine = [];          // my seats
  var seats = [];         // the game's seats with a player
  var finished = false;

  function threadOf(m) {
    if (!m.to) return "table";
    var parties = m.to.concat([m.seat]).filter(function (s) { return mine.indexOf(s) < 0; });
    // A private message I can see but am not part of (revealed at the end) has its own thread.
    return parties.filter(function (s, i) { return parties.indexOf(s) === i; }).sort().join("");
  }

  function threads() {
    var list = ["table"];
    seats.forEach(function (s) { if (mine.indexOf(s) < 0 && mine.length) list.push(s); });
    messages.forEach(function (m) {
      var t = threadOf(m);
      if (list.indexOf(t) < 0) list.push(t);
    });
    return list;
  }

  function label(t) {
    if (t === "table") return T("js-talk-table");
    return t.split("").map(D.seatName).join(" + ");
  }

  function unread(t) {
    return messages.filter(function (m) {
      return threadOf(m) === t && m.seq > (read[t] || 0) && mine.indexOf(m.seat) < 0;
    }).length;
  }

  function renderTabs() {
    var focused = document.activeElement && document.activeElement.parentNode === tabs;
    tabs.textContent = "";
    threads().forEach(function (t) {
      var n = unread(t);
      var b = D.el("button", { type: "button", role: "tab", className: "talk-tab", "data-thread": t,
        "aria-selected": String(t === thread), tabindex: t === thread ? "0" : "-1",
        "aria-controls": "talk-view" }, [label(t)]);
      if (n > 0) {
        b.appendChild(D.el("span", { className: "talk-unread", "aria-label": T("js-talk-unread", { count: n }) }, [String(n)]));
      }
      b.addEventListener("click", function () { select(t); });
      tabs.appendChild(b);
      if (focused && t === thread) b.focus();
    });
  }

  function onTabKey(event) {
    var list = threads();
    var i = list.indexOf(thread);
    var next = null;
    if (event.key === "ArrowRight") next = list[(i + 1) % list.length];
    else if (event.key === "ArrowLeft") next = list[(i + list.length - 1) % list.length];
    else if (event.key === "Home") next = list[0];
    else if (event.key === "End") next = list[list.length - 1];
    if (next === null) return;
    event.preventDefault();
    select(next);
    var b = tabs.querySelector('[data-thread="' + next + '"]');
    if (b) b.focus();
  }

  function renderLog() {
    log.textContent = "";
    var shown = messages.filter(function (m) { return threadOf(m) === thread; });
    if (!shown.length) log.appendChild(D.el("li", { className: "talk-empty" }, [T("js-talk-empty")]));
    shown.forEach(function (m) {
      var who = D.seatName(m.seat) + (mine.indexOf(m.seat) >= 0 ? " " + T("js-you") : "");
      var to = m.to ? " → " + m.to.map(D.seatName).join(", ") : "";
      var li = D.el("li", { className: "talk-item", "data-seq": String(m.seq) }, [
        D.el("span", { className: "talk-from" }, [who + to]),
        " ",
        D.el("time", { dateTime: m.created_at }, [D.when(m.created_at)]),
      ]);
      var text = D.el("p", { className: "talk-body" }, []);
      text.textContent = m.text;
      li.appendChild(text);
      log.appendChild(li);
    });
    log.scrollTop = log.scrollHeight;
  }

  function renderForm() {
    var canWrite = mine.length > 0 && !finished;
    form.hidden = !canWrite;
    var whole = thread === "table";
    input.setAttribute("placeholder", whole ? T("js-talk-to-table") : T("js-talk-to-private", { seats: label(thread) }));
    input.setAttribute("aria-label", whole ? T("js-talk-message-table") : T("js-talk-message-private", { seats: label(thread) }));
    note.textContent = mine.length ? (finished ? T("js-talk-closed") : "") : T("js-talk-spectators");
  }

  function markRead() {
    messages.forEach(function (m) {
      if (threadOf(m) === thread) read[thread] = Math.max(read[thread] || 0, m.seq);
    });
  }

  function render() { markRead(); renderTabs(); renderLog(); renderForm(); }

  function select(t) { thread = t; render(); }

  async function fetchNew() {
    for (;;) {
      var page = await D.api("GET", api + "/messages?limit=100&after=" + after);
      page.items.forEach(function (m) { messages.push(m); after = Math.max(after, m.seq); });
      if (!page.next_cursor) break;
    }
  }

  async function loadGame() {
    var s = await D.api("GET", api);
    seats = (s.seats || []).filter(function (x) { return x.user_id; }).map(function (x) { return x.seat; });
    mine = (s.seats || []).filter(function (x) { return x.user_id && x.user_id === me; }).map(function (x) { return x.seat; });
    finished = s.status === "finished";
  }

  async function refresh() {
    try {
      var before = messages.length;
      await loadGame();
      await fetchNew();
      if (messages.length !== before || !tabs.childElementCount) render();
      else renderForm();
      panel.setAttribute("data-ready", "true");
    } catch (error) {
      note.textContent = T("js-talk-failed", { error: error.message || error });
    }
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    var text = input.value;
    if (!text.trim()) return;
    var body = { text: text };
    if (thread !== "table") body.to = thread.split("");
    try {
      await D.api("POST", api + "/messages", body);
      input.value = "";
      note.textContent = "";
      await fetchNew();
      render();
      input.focus();
    } catch (error) {
      note.textContent = error.message || String(error);
    }
  });

  input.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      if (form.requestSubmit) form.requestSubmit();
      else form.dispatchEvent(new Event("submit", { cancelable: true }));
    }
  });
  tabs.addEventListener("keydown", onTabKey);

  refresh();
  if (live) {
    // A player hears of new messages from their notification stream (one `message` item
    // per message addressed to them), so an open page costs no polling; spectators, who
    // get no notifications, and a page whose stream cannot open look again now and then.
    if (me && window.EventSource) {
      var source = new EventSource("/v1/me/notifications/stream");
      source.addEventListener("message", function (event) {
        try {
          if (JSON.parse(event.data).game_id === gameId) refresh();
        } catch (_) { /* not an item of ours */ }
      });
      source.addEventListener("open", refresh);
    }
    setInterval(refresh, me ? 60000 : 15000);
  }
})();
