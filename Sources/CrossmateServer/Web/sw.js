// Keeps the app's own files so a reload works offline: the shell is served from the cache when
// the network fails, and refreshed from the network whenever it answers. API calls and the
// socket pass through untouched; the open game's state and queued commands are in IndexedDB.
const CACHE = "crossmate-app-v8";
const SHELL = ["/", "/app/app.js", "/app/dom.js", "/app/nav.js", "/app/connection.js", "/app/game.js", "/app/gameview.js", "/app/gamestate.js", "/app/chat.js", "/app/replay.js", "/app/ending.js", "/app/keys.js", "/app/api.js", "/app/routes.js", "/app/queue.js", "/app/settings.js", "/app/settingsdialog.js", "/app/share.js", "/app/stats.js", "/app/pages.js", "/app/style.css", "/app/icon.svg"];

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
