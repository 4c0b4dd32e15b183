// Crossmate in the browser: the shell (routing, the account's settings, nudges). The pages load
// when first shown: the first visit, joining and linking from welcome.js, the list from
// gameslist.js, friends from friends.js, the solving page from game.js. Pages are paths (/, /games/ID, /join/TOKEN, /link, /friends); the
// server answers each with this app. Pages import what they share from dom.js, connection.js and
// nav.js, never from here, so no module imports one that imports it.

import { identity } from "./api.js";
import { connection } from "./connection.js";
import { main, toast } from "./dom.js";
import { navigate } from "./nav.js";
import { applyTheme, settings } from "./settings.js";

addEventListener("popstate", () => route());
addEventListener("crossmate:route", () => route());
document.addEventListener("click", (event) => {
  const link = event.target.closest?.("a[data-route]");
  if (!link || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  navigate(link.getAttribute("href"));
});

// The account's settings: the last copy at once, the server's when it answers, and again
// whenever another of the account's devices changes something (a feed poke).
applyTheme();
connection.listen((message) => {
  if (message.type === "feed" || (message.type === "state" && message.state === "live")) settings.load();
});

// A nudge reaches whichever page is open; so does a next puzzle started with this account
// (the page of the game it follows goes straight in; the list shows it first).
connection.listen((message) => {
  if (message.type === "nextGame" && !location.pathname.startsWith("/games/")) {
    toast(`${message.next.byName} started ${message.next.title} with you.`);
    return;
  }
  if (message.type !== "nudge") return;
  const { fromName, message: text } = message.nudge;
  toast(`${fromName} nudged you${text ? `: “${text}”` : " to come and help"}.`);
});

// Leaving the page closes the socket at once (a page kept for the back button would otherwise
// keep it open, and this device would still count as in the game); coming back reconnects.
addEventListener("pagehide", () => {
  leavePage();
  const socket = connection.socket;
  connection.socket = null;
  socket?.close();
});
addEventListener("pageshow", (event) => {
  if (event.persisted) {
    connection.retryNow();
    route();
  }
});

// MARK: Pages

let leavePage = () => {};

async function route() {
  leavePage();
  leavePage = () => {};
  const path = location.pathname;
  const me = identity();
  document.getElementById("who").textContent = me ? me.displayName : "";
  const game = path.match(/^\/games\/([^/]+)$/);
  if (me) connection.start();
  // Each page's code loads when it is first shown, so a first load fetches one page's code.
  if (me && game) {
    leavePage = await (await import("./game.js")).showGame(main, decodeURIComponent(game[1]));
    return;
  }
  const join = path.match(/^\/join\/([^/]+)$/);
  if (!me || join || path === "/link") {
    const welcome = await import("./welcome.js");
    if (!me) return welcome.welcome(path);
    if (join) await welcome.accept(decodeURIComponent(join[1]));
    else await welcome.linkPage();
  } else if (path === "/friends") leavePage = await (await import("./friends.js")).friendsPage();
  else if (path === "/stats") await (await import("./stats.js")).statsPage(main);
  else leavePage = await (await import("./gameslist.js")).gamesPage();
}

// The service worker keeps the whole app for offline use (about 60 KB it fetches at install):
// registered only once the page is loaded and, on a game's page, its grid drawn (or 10 s gone
// by), so what it fetches never competes with what the player needs first.
function registerWorker() {
  if (!("serviceWorker" in navigator)) return;
  const register = () => navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
  const drawn = () => !location.pathname.startsWith("/games/") || performance.getEntriesByName("crossmate-grid-drawn").length > 0;
  const deadline = Date.now() + 10_000;
  const look = () => (drawn() || Date.now() > deadline ? register() : setTimeout(look, 100));
  if (document.readyState === "complete") look();
  else addEventListener("load", look, { once: true });
}

registerWorker();
route();
