// The service worker of the web client, served at /sw.js (scope "/"): it shows the
// server's Web Push notifications, opens the game when one is clicked, and sends a
// subscription the browser renewed to the account. Nothing else: no caching, no fetch
// handler (every page comes from the server as it is).
//
// A push's payload is the server's short JSON (api/src/notifications/push.rs):
// {"title", "body", "url": the game's page, "tag", "kind", "id"}. The notification opens
// only pages of this site: a `url` of another origin is read as its path on this one.
"use strict";

var ICON = "/icons/icon-192.png";

self.addEventListener("install", function () {
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());
});

// The page of this site that a notification opens.
function pageOf(url) {
  try {
    var u = new URL(url || "/", self.location.origin);
    if (u.protocol !== "https:" && u.protocol !== "http:") return self.location.origin + "/";
    return self.location.origin + u.pathname + u.search + u.hash;
  } catch (e) {
    return self.location.origin + "/";
  }
}

// The notification of a push (the payload read as JSON; as text when it is not JSON).
function notificationOf(data) {
  var payload = {};
  if (data) {
    try {
      payload = data.json() || {};
    } catch (e) {
      payload = { body: data.text() };
    }
  }
  var title = typeof payload.title === "string" && payload.title ? payload.title : "Djambi";
  var options = {
    body: typeof payload.body === "string" ? payload.body : "",
    icon: ICON,
    badge: ICON,
    data: { url: pageOf(payload.url), kind: payload.kind || null, id: payload.id || null },
  };
  if (typeof payload.tag === "string" && payload.tag) {
    // One notification per game: a newer one replaces it, and says so.
    options.tag = payload.tag;
    options.renotify = true;
  }
  return { title: title, options: options };
}

self.addEventListener("push", function (event) {
  var n = notificationOf(event.data);
  event.waitUntil(self.registration.showNotification(n.title, n.options));
});

// Focuses a window already showing the page, or opens one (a window on another page is
// left as it is: its player may be writing there).
function openPage(url) {
  return self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (windows) {
    for (var i = 0; i < windows.length; i++) {
      if (windows[i].url === url && "focus" in windows[i]) return windows[i].focus();
    }
    return self.clients.openWindow(url);
  });
}

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = pageOf(event.notification.data && event.notification.data.url);
  event.waitUntil(openPage(url));
});

// The browser renewed this device's subscription, or dropped it (Firefox does, when its
// push service rotates endpoints; Chromium never fires this). The new one (made again
// with the server's key when the browser gives none) goes to the account as the settings
// page sends it: signed in by the session cookie, with the CSRF token of the settings
// page; the old one's row is deleted. Signed out, nothing is sent: the settings page
// offers to enable notifications again.
self.addEventListener("pushsubscriptionchange", function (event) {
  event.waitUntil(renew(event.oldSubscription, event.newSubscription));
});

function bytesOfBase64url(text) {
  var b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  var raw = atob(b64 + "===".slice((b64.length + 3) % 4));
  var out = new Uint8Array(raw.length);
  for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

function json(response) {
  if (!response.ok) throw new Error(response.url + ": " + response.status);
  return response.json();
}

// The CSRF token of the signed-in session, as the settings page carries it ("" when
// signed out).
function csrfToken() {
  return fetch("/settings", { credentials: "same-origin" }).then(function (r) {
    return r.text();
  }).then(function (html) {
    var m = /<meta name="csrf-token" content="([^"]*)">/.exec(html);
    return m ? m[1] : "";
  });
}

function renew(old, sub) {
  var made = sub ? Promise.resolve(sub) : fetch("/v1/push/vapid-public-key").then(json).then(function (k) {
    return self.registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: bytesOfBase64url(k.public_key),
    });
  });
  return Promise.all([made, csrfToken()]).then(function (got) {
    var fresh = got[0], token = got[1];
    if (!token) return null;
    var send = function (method, url, body) {
      var init = { method: method, credentials: "same-origin", headers: { accept: "application/json", "X-CSRF-Token": token } };
      if (body !== undefined) {
        init.headers["content-type"] = "application/json";
        init.body = JSON.stringify(body);
      }
      return fetch(url, init);
    };
    return send("POST", "/v1/me/push-subscriptions", fresh.toJSON()).then(json).then(function () {
      if (!old || !old.endpoint || old.endpoint === fresh.endpoint) return null;
      return fetch("/v1/me/push-subscriptions", { credentials: "same-origin" }).then(json).then(function (rows) {
        var gone = (rows.items || rows).filter(function (r) { return r.endpoint === old.endpoint; });
        return Promise.all(gone.map(function (r) {
          return send("DELETE", "/v1/me/push-subscriptions/" + encodeURIComponent(r.id));
        }));
      });
    });
  });
}
