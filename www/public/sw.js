// The app shell offline: pages and hashed build files are served from the network when it
// answers and from the cache `engram-www-shell` when it does not. The page fills that cache
// after its first load (main.js). The tables are not handled here: engram keeps them in its
// own Cache API cache (`engram-assets-v1`).
const SHELL = "engram-www-shell-v1";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== "GET" || url.origin !== self.location.origin || /\.(engemb|engtok)$/.test(url.pathname)) return;
  e.respondWith(
    fetch(e.request).catch(async () => {
      const cache = await caches.open(SHELL);
      const hit = (await cache.match(e.request, { ignoreSearch: true, ignoreVary: true })) ?? (e.request.mode === "navigate" ? await cache.match("./") : undefined);
      return hit ?? Response.error();
    }),
  );
});
