// The service worker of the web client, served at /sw.js (scope "/"): it shows the
// server's Web Push notifications and opens the game when one is clicked. Nothing else:
// no caching, no fetch handler (every page comes from the server as it is).
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
