// Keeps the app's own files so a reload works offline: the shell is served from the cache when
// the network fails, and refreshed from the network whenever it answers. API calls and the
// socket pass through untouched; the open game's state and queued commands are in IndexedDB.
const CACHE = "crossmate-app-v11";
const SHELL = ["/", "/app/app.js", "/app/dom.js", "/app/nav.js", "/app/connection.js", "/app/game.js", "/app/gameview.js", "/app/gamemodel.js", "/app/gridview.js", "/app/toolbar.js", "/app/outbox.js", "/app/gamestate.js", "/app/chat.js", "/app/sides.js", "/app/replay.js", "/app/ending.js", "/app/keys.js", "/app/api.js", "/app/routes.js", "/app/limits.js", "/app/queue.js", "/app/settings.js", "/app/settingsdialog.js", "/app/share.js", "/app/stats.js", "/app/push.js", "/app/download.js", "/app/confirm.js", "/app/desktop.js", "/app/phone.js", "/app/welcome.js", "/app/gameslist.js", "/app/friends.js", "/app/qr.js", "/app/style.css", "/app/pages.css", "/app/chat.css", "/app/sides.css", "/app/desktop.css", "/app/icon.svg", "/app/icon-192.png", "/app/icon-512.png", "/app/icon-maskable-512.png", "/app/manifest.webmanifest"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys().then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin) return;
  if (url.pathname.startsWith("/v1/") || url.pathname === "/v1") return;
  // Pages are all the one app page.
  const page = event.request.mode === "navigate";
  const cacheKey = page ? "/" : url.pathname;
  event.respondWith(
    fetch(event.request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          caches.open(CACHE).then((cache) => cache.put(cacheKey, copy));
        }
        return response;
      })
      .catch(() => caches.match(cacheKey).then((cached) => cached ?? Response.error())),
  );
});

// A push from the server (Web Push, decrypted by the browser): one notification per game (a
// second replaces the first), and on the app's icon the number of games waiting.
self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { body: event.data ? event.data.text() : "" };
  }
  const shown = self.registration.showNotification(message.title || "Crossmate", {
    body: message.body || "",
    tag: message.gameID ? `game-${message.gameID}` : "crossmate",
    renotify: true,
    icon: "/app/icon-192.png",
    badge: "/app/icon-192.png",
    data: { url: message.url || "/", gameID: message.gameID },
  });
  event.waitUntil(shown.then(badgeWaiting));
});

// A click on a notification opens its game: in a window already showing it, else in the
// app's window, else a new one.
/** The app's badge: how many games have a notification waiting. */
async function badgeWaiting() {
  if (!("setAppBadge" in self.navigator)) return;
  const waiting = (await self.registration.getNotifications()).length;
  await (waiting ? self.navigator.setAppBadge(waiting) : self.navigator.clearAppBadge()).catch(() => {});
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(badgeWaiting());
  const url = new URL(event.notification.data?.url || "/", self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(async (windows) => {
      const showing = windows.find((client) => client.url === url);
      if (showing) return showing.focus();
      const app = windows.find((client) => new URL(client.url).origin === self.location.origin);
      if (app) {
        const moved = await app.navigate(url).catch(() => null);
        return (moved ?? app).focus();
      }
      return self.clients.openWindow(url);
    }),
  );
});
