// The web client's shared code and its small pages (log in, sign up, my games, lobby,
// settings). Plain JavaScript, no build step, no inline script (the pages are served with
// Content-Security-Policy script-src 'self'). The game page is play.js.
//
// Authentication is the HttpOnly session cookie set by POST /web/session; every request
// that changes something sends the page's CSRF token (<meta name="csrf-token">) as
// X-CSRF-Token. Errors are the API's problem documents: their `detail` is shown.
(function () {
  "use strict";

  // The page's messages (/assets/i18n/{lang}.js, made by the server from
  // locales/<lang>/pages.ftl and game.ftl): t("js-…", {name: value}) fills each {$name}.
  var MESSAGES = window.DjambiMessages || {};
  var LANGUAGE = window.DjambiLanguage || document.documentElement.lang || "en";
  function t(id, args) {
    var text = MESSAGES[id];
    if (text === undefined) return id;
    return text.replace(/\{\$([A-Za-z0-9_-]+)\}/g, function (whole, name) {
      return args && args[name] !== undefined ? String(args[name]) : whole;
    });
  }
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
      var err = new Error(t("js-unreachable"));
      err.status = 0;
      throw err;
    }
    var data = null;
    if (response.status !== 204) {
      try { data = await response.json(); } catch (e) { data = null; }
    }
    if (!response.ok) {
      var detail = data && (data.detail || data.title);
      var error = new Error(detail || t("js-server-answered", { status: response.status }));
      error.status = response.status;
      error.problem = data;
      if (response.status === 401 && document.body.getAttribute("data-page") !== "login" &&
          document.body.getAttribute("data-page") !== "signup") {
        error.message += " " + t("js-log-in-again");
      }
      throw error;
    }
    return data;
  }

  function seatName(letter) { return MESSAGES["seat-" + letter] || String(letter || "?"); }
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

  // The account's time zone (settings), else the browser's.
  function timeZone() {
    var zone = document.body.getAttribute("data-time-zone");
    return zone || undefined;
  }

  // A moment in the page's language and the reader's time zone, and how far it is
  // ("mercredi 2 décembre 2026 à 14:05 (dans 3 heures)").
  function when(iso) {
    if (!iso) return "";
    var d = new Date(iso);
    var left = d.getTime() - Date.now();
    var abs = Math.abs(left);
    var sign = left >= 0 ? 1 : -1;
    var text;
    try {
      text = d.toLocaleString(LANGUAGE, { dateStyle: "full", timeStyle: "short", timeZone: timeZone() });
    } catch (e) {
      text = d.toLocaleString(LANGUAGE);
    }
    var rel;
    try {
      var rtf = new Intl.RelativeTimeFormat(LANGUAGE, { numeric: "always" });
      if (abs < 3600e3) rel = rtf.format(sign * Math.round(abs / 60e3), "minute");
      else if (abs < 48 * 3600e3) rel = rtf.format(sign * Math.round(abs / 3600e3), "hour");
      else rel = rtf.format(sign * Math.round(abs / 86400e3), "day");
    } catch (e) {
      rel = "";
    }
    return rel ? text + " (" + rel + ")" : text;
  }

  function setText(id, text) {
    var node = document.getElementById(id);
    if (node) node.textContent = text;
  }

  function safeNext() {
    var next = new URLSearchParams(window.location.search).get("next") || "/";
    // A path of this site, with a query of encoded characters only (an app's consent page).
    return /^\/(?!\/)[A-Za-z0-9\/_\-]*(\?[A-Za-z0-9%&=+*._\-]*)?$/.test(next) ? next : "/";
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
        var account = { username: form.username.value, email: form.email.value, password: form.password.value };
        if (form.language && form.language.value) account.language = form.language.value;
        await api("POST", "/v1/accounts", account);
        await logIn(form.username.value, form.password.value);
        // "Play now" (`/signup?play=1`): a game against three computer players, opened at once.
        if (form.level && window.DjambiNewcomer) {
          window.location.assign(await window.DjambiNewcomer.playNow(form.level.value));
          return;
        }
        window.location.assign("/lobby");
      } catch (error) {
        var errors = error.problem && error.problem.errors;
        if (errors && errors.length) {
          error.message = errors.map(function (e) { return t("js-field-error", { field: e.field, message: e.message }); }).join("; ");
        }
        formError("form-error", error);
      }
    });
  }

  function players(game) {
    return (game.seats || []).map(function (s) {
      var who = s.username || (s.bot ? t("js-computer-level", { level: s.bot.level }) : t("js-free"));
      return t("js-seat-player", { seat: seatLabel(s.seat), player: who });
    }).join(", ");
  }

  // The rule options the web client names (VARIANTS.md): a short name for each
  // non-default value; an option at its default is not named.
  var RULE_NAMES = {
    friendly_fire: { own_non_chief: "js-rule-friendly-fire" },
    master_moves: { on: "js-rule-master-moves" },
    reporter: { forced: "js-rule-reporter" },
    surround: { kw_throne_access: "js-rule-surround" },
    two_seat_bonus: { off: "js-rule-two-seat-bonus" },
    corpse_on_maze: { on: "js-rule-corpse-on-maze" },
    layout: { rotational: "js-rule-layout" },
  };

  // "Standard rules", or the variant's options by name ("Variant: master moves, forced
  // reporter"); an option this client does not know is shown as name=value.
  function rulesText(game) {
    var options = game && game.ruleset_options;
    if (!options) return game && game.ruleset ? t("js-rules-named", { ruleset: game.ruleset }) : "";
    var names = [];
    Object.keys(options).sort().forEach(function (option) {
      var value = options[option];
      var known = RULE_NAMES[option];
      if (known && known[value]) names.push(t(known[value]));
      else if (!known) names.push(option + "=" + value);
    });
    return names.length ? t("js-variant", { options: names.join(", ") }) : t("js-standard-rules");
  }

  // What the table talk of a game does with private messages, said before anyone joins:
  // revealed to all at the end, or kept private; and whether players out may write.
  function talkText(game) {
    if (!game || !game.press) return "";
    var text = t(game.press === "revealed_at_end" ? "js-talk-revealed" : "js-talk-private");
    if (game.eliminated_may_write === false) text += " " + t("js-talk-out-silent");
    return text;
  }

  function gameItem(game, me) {
    var turn = "";
    if (game.status === "active" && game.to_move) {
      turn = game.to_move_user_id === me ? t("js-your-move") : t("js-seat-to-move", { seat: seatName(game.to_move) });
    } else if (game.status === "open") {
      turn = t("js-waiting-free", { seats: (game.open_seats || []).map(seatName).join(", ") });
    } else if (game.status === "finished") {
      turn = t("js-finished");
    }
    var link = el("a", { href: "/play/" + encodeURIComponent(game.id), className: "game-link", "data-game-id": game.id },
      [t("js-game", { game: game.id.slice(0, 8) })]);
    return el("li", { className: "game" + (game.to_move_user_id === me ? " mine" : "") }, [
      link,
      el("span", { className: "turn", text: " " + turn }),
      game.deadline ? el("span", { className: "deadline", text: " · " + t("js-deadline", { when: when(game.deadline) }) }) : null,
      el("div", { className: "who", text: players(game) }),
      el("div", { className: "rules", text: rulesText(game) }),
      el("div", { className: "talk-rules", text: talkText(game) }),
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
      if (!mine.items.length) turnList.appendChild(el("li", { text: t("js-none-waiting") }));
      if (!all.items.length) allList.appendChild(el("li", { text: t("js-no-games") }));
      setText("status", t("js-waiting-count", { count: mine.items.length }));
    } catch (error) {
      setText("status", t("js-games-failed", { error: error.message }));
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
            [t("js-take-seat", { seat: seatLabel(seat) })]);
          button.addEventListener("click", async function () {
            button.disabled = true;
            try {
              await api("POST", "/v1/games/" + encodeURIComponent(game.id) + "/seats/" + seat, {});
              window.location.assign("/play/" + encodeURIComponent(game.id));
            } catch (error) {
              setText("status", t("js-seat-failed", { error: error.message }));
              button.disabled = false;
              loadLobby();
            }
          });
          item.appendChild(button);
        });
      }
      list.appendChild(item);
    });
    if (!page.items.length) list.appendChild(el("li", { text: t("js-no-open-game") }));
    setText("status", t("js-open-count", { count: page.items.length }));
  }

  function lobbyPage() {
    ["R", "B", "Y", "G"].forEach(function (seat) {
      var select = document.getElementById("bot-" + seat);
      select.appendChild(el("option", { value: "", text: t("js-person") }));
      for (var level = 1; level <= 5; level++) select.appendChild(el("option", { value: String(level), text: t("js-level", { level: level }) }));
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
    loadLobby().catch(function (error) { setText("status", t("js-lobby-failed", { error: error.message })); });
  }

  // The name of a kind of notification (js-kind-<kind>), or the kind itself.
  function kindName(kind) { return MESSAGES["js-kind-" + kind] || kind; }

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
        return item.running ? t("js-vacation-until", { until: when(item.ends_at) })
          : t("js-vacation-from", { from: when(item.starts_at), until: when(item.ends_at) });
      }).join(" ")
      : t("js-no-vacation");
    var days = function (secs) { return (secs / 86400).toLocaleString(LANGUAGE, { maximumFractionDigits: 1, minimumFractionDigits: 1 }); };
    text += " " + t("js-allowance", { allowance: v.allowance_days, used: days(v.used_secs_this_year), left: days(v.left_secs_this_year) });
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
      setText("status", t("js-settings-failed", { error: error.message }));
      return;
    }
    pushSection();
    var tbody = document.getElementById("kinds");
    Object.keys(settings.kinds).forEach(function (kind) {
      var row = el("tr", {}, [el("th", { scope: "row", text: kindName(kind) })]);
      ["email", "webhook", "push"].forEach(function (channel) {
        var box = el("input", { type: "checkbox", "data-kind": kind, "data-channel": channel,
          "aria-label": t("js-kind-by-" + channel, { kind: kindName(kind) }) });
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
      if (offsets.some(isNaN)) { setText("notify-error", t("js-reminders-invalid")); return; }
      try {
        settings = await api("PUT", "/v1/me/notification-settings", {
          kinds: kinds, reminder_offsets_secs: offsets, email_digest: document.getElementById("digest").checked,
        });
        setText("status", t("js-notify-saved"));
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
        setText("status", t("js-vacation-saved"));
      } catch (error) {
        setText("vacation-error", error.message);
      }
    });
    document.getElementById("vacation-cancel").addEventListener("click", async function () {
      setText("vacation-error", "");
      try {
        if (soonestVacation) await api("DELETE", "/v1/me/vacations/" + encodeURIComponent(soonestVacation.id));
        await loadVacation();
        setText("status", t("js-vacation-ended"));
      } catch (error) {
        setText("vacation-error", error.message);
      }
    });
    var end = document.getElementById("vacation-end");
    if (!end.value) end.value = localInput(new Date(Date.now() + 7 * 86400e3).toISOString());
    languageForm();
  }

  // The language and time zone of pages and mails (PATCH /v1/me); the page is shown again
  // in the new language.
  function languageForm() {
    var form = document.getElementById("language-form");
    if (!form) return;
    form.addEventListener("submit", async function (event) {
      event.preventDefault();
      setText("language-error", "");
      try {
        await api("PATCH", "/v1/me", {
          language: document.getElementById("language").value,
          time_zone: document.getElementById("time-zone").value.trim(),
        });
        window.location.reload();
      } catch (error) {
        setText("language-error", error.message);
      }
    });
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
        var error = new Error(t("js-push-timeout", { secs: secs }));
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

  function devices(n) { return n === 1 ? t("js-push-one-device") : t("js-push-devices", { n: n }); }

  async function showPush() {
    var section = document.getElementById("push");
    var enable = document.getElementById("push-enable");
    var disable = document.getElementById("push-disable");
    var state;
    var text;
    if (section.getAttribute("data-push") !== "on") {
      state = "off-server";
      text = t("js-push-off-server");
    } else if (!pushSupported()) {
      state = "unsupported";
      text = t("js-push-unsupported");
    } else {
      var st = await pushState();
      var others = st.rows.length - (st.row ? 1 : 0);
      if (st.row) {
        state = "on";
        text = t("js-push-on", { since: new Date(st.row.created_at).toLocaleString() }) +
          (others ? " " + t("js-push-on-others", { devices: devices(others) }) : "");
      } else if (Notification.permission === "denied") {
        state = "blocked";
        text = t("js-push-blocked");
      } else {
        state = "off";
        text = t("js-push-off") +
          (others ? " " + t("js-push-off-others", { devices: devices(others) }) : "");
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
        if (error.status === 404) throw new Error(t("js-push-no-server"));
        throw error;
      }
      var permission = await Notification.requestPermission();
      if (permission !== "granted") {
        throw new Error(permission === "denied"
          ? t("js-push-denied")
          : t("js-push-not-allowed"));
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
          throw new Error(t("js-push-subscribe-failed",
            { error: (error.name ? error.name + ": " : "") + error.message }));
        }
      }
      await api("POST", "/v1/me/push-subscriptions", sub.toJSON());
      await showPush();
      setText("status", t("js-push-enabled"));
    } catch (error) {
      setText("push-error", t("js-push-enable-failed", { error: error.message }));
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
      setText("status", t("js-push-disabled"));
    } catch (error) {
      setText("push-error", t("js-push-disable-failed", { error: error.message }));
    } finally {
      button.disabled = false;
    }
  }

  function pushSection() {
    document.getElementById("push-enable").addEventListener("click", enablePush);
    document.getElementById("push-disable").addEventListener("click", disablePush);
    showPush().catch(function (error) {
      setText("push-state", t("js-push-read-failed", { error: error.message }));
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
    api: api, el: el, when: when, rulesText: rulesText, talkText: talkText, seatName: seatName, seatLabel: seatLabel, setText: setText,
    t: t, language: LANGUAGE,
    SEAT_GLYPHS: SEAT_GLYPHS,
  };

  function start() {
    logoutButton();
    var pages = { login: loginPage, welcome: loginPage, signup: signupPage, home: homePage, lobby: lobbyPage, settings: settingsPage };
    var page = pages[document.body.getAttribute("data-page")];
    if (page) page();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
