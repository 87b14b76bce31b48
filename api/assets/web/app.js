// The web client's shared code and its small pages (log in, sign up, my games, lobby,
// settings). Plain JavaScript, no build step, no inline script (the pages are served with
// Content-Security-Policy script-src 'self'). The game page is play.js.
//
// Authentication is the HttpOnly session cookie set by POST /web/session; every request
// that changes something sends the page's CSRF token (<meta name="csrf-token">) as
// X-CSRF-Token. Errors are the API's problem documents: their `detail` is shown.
(function () {
  "use strict";

  var SEAT_NAMES = { R: "Red", B: "Blue", Y: "Yellow", G: "Green" };
  // A glyph per party, so that parties are told apart without colour.
  var SEAT_GLYPHS = { R: "▲", B: "●", Y: "■", G: "◆" };

  function csrfToken() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.getAttribute("content") : "";
  }

  function setCsrfToken(token) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (meta) meta.setAttribute("content", token);
  }

  // A request to the server: JSON in and out; a problem document becomes an Error whose
  // message is its `detail`, with `status` and `problem`.
  async function api(method, url, body, headers) {
    var init = { method: method, headers: { accept: "application/json" }, credentials: "same-origin" };
    Object.keys(headers || {}).forEach(function (k) { init.headers[k] = headers[k]; });
    if (method !== "GET" && method !== "HEAD") {
      init.headers["X-CSRF-Token"] = csrfToken();
      init.headers["content-type"] = "application/json";
      init.body = JSON.stringify(body === undefined ? {} : body);
    }
    var response;
    try {
      response = await fetch(url, init);
    } catch (e) {
      var err = new Error("The server could not be reached; check the connection and try again.");
      err.status = 0;
      throw err;
    }
    var data = null;
    if (response.status !== 204) {
      try { data = await response.json(); } catch (e) { data = null; }
    }
    if (!response.ok) {
      var detail = data && (data.detail || data.title);
      var error = new Error(detail || "The server answered " + response.status + ".");
      error.status = response.status;
      error.problem = data;
      if (response.status === 401 && document.body.getAttribute("data-page") !== "login" &&
          document.body.getAttribute("data-page") !== "signup") {
        error.message += " (log in again)";
      }
      throw error;
    }
    return data;
  }

  function seatName(letter) { return SEAT_NAMES[letter] || String(letter || "?"); }
  function seatLabel(letter) { return (SEAT_GLYPHS[letter] || "") + " " + seatName(letter); }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "className") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }

  function when(iso) {
    if (!iso) return "";
    var d = new Date(iso);
    var left = d.getTime() - Date.now();
    var rel;
    var abs = Math.abs(left);
    if (abs < 3600e3) rel = Math.round(abs / 60e3) + " min";
    else if (abs < 48 * 3600e3) rel = Math.round(abs / 3600e3) + " h";
    else rel = Math.round(abs / 86400e3) + " days";
    return d.toLocaleString() + (left >= 0 ? " (in " + rel + ")" : " (" + rel + " ago)");
  }

  function setText(id, text) {
    var node = document.getElementById(id);
    if (node) node.textContent = text;
  }

  function safeNext() {
    var next = new URLSearchParams(window.location.search).get("next") || "/";
    return /^\/(?!\/)[A-Za-z0-9\/_\-]*$/.test(next) ? next : "/";
  }

  async function logIn(username, password) {
    var answer = await api("POST", "/web/session", { username: username, password: password });
    setCsrfToken(answer.csrf_token);
    return answer;
  }

  function formError(id, error) {
    setText(id || "form-error", error ? error.message : "");
  }

  // ---- pages ------------------------------------------------------------------------

  function loginPage() {
    var form = document.getElementById("login-form");
    form.addEventListener("submit", async function (event) {
      event.preventDefault();
      formError();
      try {
        await logIn(form.username.value, form.password.value);
        window.location.assign(safeNext());
      } catch (error) {
        formError("form-error", error);
      }
    });
  }

  function signupPage() {
    var form = document.getElementById("signup-form");
    form.addEventListener("submit", async function (event) {
      event.preventDefault();
      formError();
      try {
        await api("POST", "/v1/accounts", {
          username: form.username.value, email: form.email.value, password: form.password.value,
        });
        await logIn(form.username.value, form.password.value);
        window.location.assign("/lobby");
      } catch (error) {
        var errors = error.problem && error.problem.errors;
        if (errors && errors.length) {
          error.message = errors.map(function (e) { return e.field + ": " + e.message; }).join("; ");
        }
        formError("form-error", error);
      }
    });
  }

  function players(game) {
    return (game.seats || []).map(function (s) {
      var who = s.username || (s.bot ? "computer (level " + s.bot.level + ")" : "free");
      return seatLabel(s.seat) + ": " + who;
    }).join(", ");
  }

  // The rule options the web client names (VARIANTS.md): a short name for each
  // non-default value; an option at its default is not named.
  var RULE_NAMES = {
    friendly_fire: { own_non_chief: "friendly fire" },
    master_moves: { on: "master moves" },
    reporter: { forced: "forced reporter" },
    surround: { kw_throne_access: "throne access" },
    two_seat_bonus: { off: "no two-player bonus" },
    corpse_on_maze: { on: "corpse on the maze" },
    layout: { rotational: "rotational layout" },
  };

  // "Standard rules", or the variant's options by name ("Variant: master moves, forced
  // reporter"); an option this client does not know is shown as name=value.
  function rulesText(game) {
    var options = game && game.ruleset_options;
    if (!options) return game && game.ruleset ? "Rules: " + game.ruleset : "";
    var names = [];
    Object.keys(options).sort().forEach(function (option) {
      var value = options[option];
      var known = RULE_NAMES[option];
      if (known && known[value]) names.push(known[value]);
      else if (!known) names.push(option + "=" + value);
    });
    return names.length ? "Variant: " + names.join(", ") : "Standard rules";
  }

  function gameItem(game, me) {
    var turn = "";
    if (game.status === "active" && game.to_move) {
      turn = game.to_move_user_id === me ? "Your move" : seatName(game.to_move) + " to move";
    } else if (game.status === "open") {
      turn = "Waiting for players (" + (game.open_seats || []).map(seatName).join(", ") + " free)";
    } else if (game.status === "finished") {
      turn = "Finished";
    }
    var link = el("a", { href: "/play/" + encodeURIComponent(game.id), className: "game-link", "data-game-id": game.id },
      ["Game " + game.id.slice(0, 8)]);
    return el("li", { className: "game" + (game.to_move_user_id === me ? " mine" : "") }, [
      link,
      el("span", { className: "turn", text: " " + turn }),
      game.deadline ? el("span", { className: "deadline", text: " · deadline " + when(game.deadline) }) : null,
      el("div", { className: "who", text: players(game) }),
      el("div", { className: "rules", text: rulesText(game) }),
    ]);
  }

  async function homePage() {
    var me = document.body.getAttribute("data-user-id");
    try {
      var mine = await api("GET", "/v1/me/games?turn=mine&limit=100");
      var all = await api("GET", "/v1/me/games?limit=100");
      var turnList = document.getElementById("my-turn");
      var allList = document.getElementById("my-games");
      turnList.textContent = "";
      allList.textContent = "";
      mine.items.forEach(function (g) { turnList.appendChild(gameItem(g, me)); });
      all.items.forEach(function (g) { allList.appendChild(gameItem(g, me)); });
      if (!mine.items.length) turnList.appendChild(el("li", { text: "No game is waiting for you." }));
      if (!all.items.length) allList.appendChild(el("li", { text: "No games yet." }));
      setText("status", mine.items.length + " game(s) waiting for your move.");
    } catch (error) {
      setText("status", "Could not load your games: " + error.message);
    }
  }

  async function loadLobby() {
    var me = document.body.getAttribute("data-user-id");
    var list = document.getElementById("open-games");
    var page = await api("GET", "/v1/games?status=open&limit=100");
    list.textContent = "";
    page.items.forEach(function (game) {
      var item = gameItem(game, me);
      var seated = (game.seats || []).some(function (s) { return s.user_id === me; });
      if (!seated) {
        (game.open_seats || []).forEach(function (seat) {
          var button = el("button", { type: "button", className: "take-seat", "data-game-id": game.id, "data-seat": seat },
            ["Take " + seatLabel(seat)]);
          button.addEventListener("click", async function () {
            button.disabled = true;
            try {
              await api("POST", "/v1/games/" + encodeURIComponent(game.id) + "/seats/" + seat, {});
              window.location.assign("/play/" + encodeURIComponent(game.id));
            } catch (error) {
              setText("status", "Could not take the seat: " + error.message);
              button.disabled = false;
              loadLobby();
            }
          });
          item.appendChild(button);
        });
      }
      list.appendChild(item);
    });
    if (!page.items.length) list.appendChild(el("li", { text: "No open game; create one." }));
    setText("status", page.items.length + " open game(s).");
  }

  function lobbyPage() {
    ["R", "B", "Y", "G"].forEach(function (seat) {
      var select = document.getElementById("bot-" + seat);
      select.appendChild(el("option", { value: "", text: "person" }));
      for (var level = 1; level <= 5; level++) select.appendChild(el("option", { value: String(level), text: "level " + level }));
    });
    var form = document.getElementById("create-form");
    form.addEventListener("submit", async function (event) {
      event.preventDefault();
      formError();
      var seats = parseInt(form.seats.value, 10);
      var body = { seats: seats, seat: form.seat.value, visibility: form.visibility.value };
      if (form.time.value) body.time_control = { per_move_secs: parseInt(form.time.value, 10), max_bank_secs: null };
      var bots = [];
      ["R", "B", "Y", "G"].forEach(function (seat) {
        var level = document.getElementById("bot-" + seat).value;
        if (level) bots.push({ seat: seat, level: parseInt(level, 10) });
      });
      if (bots.length) body.bots = bots;
      var ruleset = {};
      Array.prototype.forEach.call(form.querySelectorAll("input[name=rule]:checked"), function (box) {
        ruleset[box.getAttribute("data-option")] = box.value;
      });
      if (Object.keys(ruleset).length) body.ruleset = ruleset;
      try {
        var game = await api("POST", "/v1/games", body);
        window.location.assign("/play/" + encodeURIComponent(game.id));
      } catch (error) {
        formError("form-error", error);
      }
    });
    loadLobby().catch(function (error) { setText("status", "Could not load the lobby: " + error.message); });
  }

  var KIND_NAMES = {
    your_turn: "Your turn", reminder: "Deadline reminders", timeout: "Timeouts",
    chief_killed: "A chief of yours killed", seat_eliminated: "Your seat eliminated",
    game_started: "Game started", game_ended: "Game ended", draw_offered: "Draw offered",
  };

  function localInput(iso) {
    var d = new Date(iso);
    var pad = function (n) { return String(n).padStart(2, "0"); };
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + "T" + pad(d.getHours()) + ":" + pad(d.getMinutes());
  }

  // The soonest running or coming vacation, which the "end or cancel" button ends.
  var soonestVacation = null;

  async function loadVacation() {
    var v = await api("GET", "/v1/me/vacations");
    soonestVacation = v.items.length ? v.items[0] : null;
    var text = v.items.length
      ? v.items.map(function (item) {
        return (item.running ? "On vacation until " : "Vacation from " + when(item.starts_at) + " until ") + when(item.ends_at) + ".";
      }).join(" ")
      : "No vacation planned.";
    text += " Allowance: " + v.allowance_days + " days a year; used this year: " + (v.used_secs_this_year / 86400).toFixed(1) +
      " days, left: " + (v.left_secs_this_year / 86400).toFixed(1) + " days.";
    setText("vacation-now", text);
    document.getElementById("vacation-cancel").hidden = !soonestVacation;
  }

  async function settingsPage() {
    var settings;
    try {
      settings = await api("GET", "/v1/me/notification-settings");
      await loadVacation();
      setText("status", "");
    } catch (error) {
      setText("status", "Could not load the settings: " + error.message);
      return;
    }
    pushSection();
    var tbody = document.getElementById("kinds");
    Object.keys(settings.kinds).forEach(function (kind) {
      var row = el("tr", {}, [el("th", { scope: "row", text: KIND_NAMES[kind] || kind })]);
      ["email", "webhook", "push"].forEach(function (channel) {
        var box = el("input", { type: "checkbox", "data-kind": kind, "data-channel": channel,
          "aria-label": (KIND_NAMES[kind] || kind) + " by " + channel });
        box.checked = !!settings.kinds[kind][channel];
        row.appendChild(el("td", {}, [box]));
      });
      tbody.appendChild(row);
    });
    var reminders = document.getElementById("reminders");
    reminders.value = settings.reminder_offsets_secs.map(function (s) { return String(s / 3600); }).join(", ");
    document.getElementById("digest").checked = settings.email_digest;
    document.getElementById("notify-form").addEventListener("submit", async function (event) {
      event.preventDefault();
      setText("notify-error", "");
      var kinds = {};
      Object.keys(settings.kinds).forEach(function (kind) {
        kinds[kind] = { feed: true, email: false, webhook: false, push: false };
      });
      Array.prototype.forEach.call(tbody.querySelectorAll("input[type=checkbox]"), function (box) {
        kinds[box.getAttribute("data-kind")][box.getAttribute("data-channel")] = box.checked;
      });
      var offsets = reminders.value.split(",").map(function (s) { return s.trim(); }).filter(Boolean)
        .map(function (h) { return Math.round(parseFloat(h) * 3600); });
      if (offsets.some(isNaN)) { setText("notify-error", "Reminders: give hours as numbers, e.g. 24, 1."); return; }
      try {
        settings = await api("PUT", "/v1/me/notification-settings", {
          kinds: kinds, reminder_offsets_secs: offsets, email_digest: document.getElementById("digest").checked,
        });
        setText("status", "Notification settings saved.");
      } catch (error) {
        setText("notify-error", error.message);
      }
    });
    document.getElementById("vacation-form").addEventListener("submit", async function (event) {
      event.preventDefault();
      setText("vacation-error", "");
      var start = document.getElementById("vacation-start").value;
      var end = document.getElementById("vacation-end").value;
      var body = { ends_at: new Date(end).toISOString() };
      if (start) body.starts_at = new Date(start).toISOString();
      try {
        await api("POST", "/v1/me/vacations", body);
        await loadVacation();
        setText("status", "Vacation saved.");
      } catch (error) {
        setText("vacation-error", error.message);
      }
    });
    document.getElementById("vacation-cancel").addEventListener("click", async function () {
      setText("vacation-error", "");
      try {
        if (soonestVacation) await api("DELETE", "/v1/me/vacations/" + encodeURIComponent(soonestVacation.id));
        await loadVacation();
        setText("status", "Vacation ended or cancelled.");
      } catch (error) {
        setText("vacation-error", error.message);
      }
    });
    var end = document.getElementById("vacation-end");
    if (!end.value) end.value = localInput(new Date(Date.now() + 7 * 86400e3).toISOString());
  }

  // ---- Web Push on this device (the settings page) -----------------------------------
  //
  // Nothing is asked of the browser at page load: the page only reads whether this
  // browser already has a subscription (no prompt). A click on "Enable notifications on
  // this device" asks the notification permission, registers the service worker
  // (/sw.js, scope /), subscribes with the server's VAPID key
  // (GET /v1/push/vapid-public-key) and sends the subscription to
  // POST /v1/me/push-subscriptions; "Turn off" deletes it (DELETE ...{id}) and
  // unsubscribes. The section's data-state says where it stands: unsupported, off-server,
  // blocked, off, on.

  // How long the browser's push service may take to subscribe (a browser without one,
  // such as a headless Chromium, never answers).
  var PUSH_SUBSCRIBE_SECS = 20;

  function withTimeout(promise, secs) {
    return new Promise(function (resolve, reject) {
      var timer = setTimeout(function () {
        var error = new Error("the push service did not answer in " + secs + " s");
        error.name = "TimeoutError";
        reject(error);
      }, secs * 1000);
      promise.then(function (v) { clearTimeout(timer); resolve(v); },
        function (e) { clearTimeout(timer); reject(e); });
    });
  }

  function pushSupported() {
    return window.isSecureContext && "serviceWorker" in navigator && "PushManager" in window &&
      "Notification" in window;
  }

  // A base64url text as bytes (the applicationServerKey).
  function base64urlBytes(text) {
    var b64 = text.replace(/-/g, "+").replace(/_/g, "/");
    while (b64.length % 4) b64 += "=";
    var raw = atob(b64);
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }

  // Whether a subscription was made with this key (a new server key needs a new one).
  function subscribedWith(sub, key) {
    var had = sub.options && sub.options.applicationServerKey;
    if (!had) return true;
    var a = new Uint8Array(had);
    var b = base64urlBytes(key);
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  // This browser's subscription (read only: no prompt) and the account's devices.
  async function pushState() {
    var reg = await navigator.serviceWorker.getRegistration("/");
    var sub = reg && reg.pushManager ? await reg.pushManager.getSubscription() : null;
    var rows = await api("GET", "/v1/me/push-subscriptions");
    var row = sub ? rows.find(function (r) { return r.endpoint === sub.endpoint; }) : null;
    return { sub: sub, row: row || null, rows: rows };
  }

  function devices(n) { return n === 1 ? "1 device" : n + " devices"; }

  async function showPush() {
    var section = document.getElementById("push");
    var enable = document.getElementById("push-enable");
    var disable = document.getElementById("push-disable");
    var state;
    var text;
    if (section.getAttribute("data-push") !== "on") {
      state = "off-server";
      text = "This server does not send push notifications (its operator has not enabled them).";
    } else if (!pushSupported()) {
      state = "unsupported";
      text = "This browser cannot receive push notifications (it needs service workers and the Push API, " +
        "over https). On an iPhone or iPad, add this site to the home screen first, then open it from there.";
    } else {
      var st = await pushState();
      var others = st.rows.length - (st.row ? 1 : 0);
      if (st.row) {
        state = "on";
        text = "Notifications are on for this device (since " + new Date(st.row.created_at).toLocaleString() + ")." +
          (others ? " They also go to " + devices(others) + " more of your account." : "");
      } else if (Notification.permission === "denied") {
        state = "blocked";
        text = "Notifications are blocked for this site in this browser: allow them in the browser's site settings, " +
          "then enable them here.";
      } else {
        state = "off";
        text = "Notifications are off on this device." +
          (others ? " They go to " + devices(others) + " of your account." : "");
      }
    }
    section.setAttribute("data-state", state);
    setText("push-state", text);
    enable.hidden = state === "on" || state === "off-server" || state === "unsupported";
    disable.hidden = state !== "on";
  }

  async function enablePush() {
    setText("push-error", "");
    var button = document.getElementById("push-enable");
    button.disabled = true;
    try {
      var key;
      try {
        key = (await api("GET", "/v1/push/vapid-public-key")).public_key;
      } catch (error) {
        if (error.status === 404) throw new Error("this server does not send push notifications.");
        throw error;
      }
      var permission = await Notification.requestPermission();
      if (permission !== "granted") {
        throw new Error(permission === "denied"
          ? "notifications are blocked for this site; allow them in the browser's site settings and try again."
          : "the browser did not allow notifications; click again and choose Allow.");
      }
      await navigator.serviceWorker.register("/sw.js", { scope: "/" });
      var reg = await navigator.serviceWorker.ready;
      var sub = await reg.pushManager.getSubscription();
      if (sub && !subscribedWith(sub, key)) {
        await sub.unsubscribe();
        sub = null;
      }
      if (!sub) {
        try {
          sub = await withTimeout(
            reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64urlBytes(key) }),
            PUSH_SUBSCRIBE_SECS);
        } catch (error) {
          throw new Error("this browser could not subscribe at its push service (" +
            (error.name ? error.name + ": " : "") + error.message + "). Try again later, or in another browser.");
        }
      }
      await api("POST", "/v1/me/push-subscriptions", sub.toJSON());
      await showPush();
      setText("status", "Notifications are on for this device.");
    } catch (error) {
      setText("push-error", "Could not enable notifications: " + error.message);
    } finally {
      button.disabled = false;
    }
  }

  async function disablePush() {
    setText("push-error", "");
    var button = document.getElementById("push-disable");
    button.disabled = true;
    try {
      var st = await pushState();
      if (st.row) await api("DELETE", "/v1/me/push-subscriptions/" + encodeURIComponent(st.row.id));
      if (st.sub) await st.sub.unsubscribe();
      await showPush();
      setText("status", "Notifications are off for this device.");
    } catch (error) {
      setText("push-error", "Could not turn notifications off: " + error.message);
    } finally {
      button.disabled = false;
    }
  }

  function pushSection() {
    document.getElementById("push-enable").addEventListener("click", enablePush);
    document.getElementById("push-disable").addEventListener("click", disablePush);
    showPush().catch(function (error) {
      setText("push-state", "Could not read this device's notifications: " + error.message);
    });
  }

  function logoutButton() {
    var button = document.getElementById("logout");
    if (!button) return;
    button.addEventListener("click", async function () {
      try {
        await api("POST", "/web/logout", {});
      } catch (error) {
        // The session may already be over: the login page is the right place either way.
      }
      window.location.assign("/login");
    });
  }

  window.Djambi = {
    api: api, el: el, when: when, rulesText: rulesText, seatName: seatName, seatLabel: seatLabel, setText: setText,
    SEAT_GLYPHS: SEAT_GLYPHS,
  };

  function start() {
    logoutButton();
    var pages = { login: loginPage, signup: signupPage, home: homePage, lobby: lobbyPage, settings: settingsPage };
    var page = pages[document.body.getAttribute("data-page")];
    if (page) page();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
