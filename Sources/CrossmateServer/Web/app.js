// Crossmate in the browser: the shell every page shares (building elements, messages, routing
// and the socket). The pages load when first shown: the list, the first visit, joining, linking
// and friends from pages.js, the solving page from game.js. Pages are paths (/, /games/ID,
// /join/TOKEN, /link, /friends); the server answers each with this app.

import { forget, identity, openSocket, ServerError } from "./api.js";
import { applyTheme, settings } from "./settings.js";

export const main = document.getElementById("app");

/** Builds an element: el("p", { class: "x" }, "text", child) (or fills one already made). */
export function el(tag, attributes = {}, ...children) {
  const node = tag instanceof Node ? tag : document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (name === "style") {
      // Through the CSS object model: the page's policy refuses style attributes.
      for (const declaration of value.split(";")) {
        const at = declaration.indexOf(":");
        if (at > 0) node.style.setProperty(declaration.slice(0, at).trim(), declaration.slice(at + 1).trim());
      }
    }
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** A short message at the bottom of the screen (also read out by screen readers). */
export function toast(message, kind = "info") {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.className = `toast ${kind} shown`;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => box.classList.remove("shown"), kind === "error" ? 6000 : 3000);
}

export function navigate(path, replace = false) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  route();
}

addEventListener("popstate", () => route());
document.addEventListener("click", (event) => {
  const link = event.target.closest?.("a[data-route]");
  if (!link || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  navigate(link.getAttribute("href"));
});

// MARK: The socket, shared by every page

/** One WebSocket per tab: reconnects with backoff, tells pages what arrives and how it stands. */
class Connection {
  constructor() {
    this.listeners = new Set();
    this.state = "connecting";
    this.socket = null;
    this.attempt = 0;
    this.offset = Number(localStorage.getItem("crossmate.clockOffset") ?? 0) || 0;
    this.subscribed = [];
    // Back online, or back in front of the player: try at once rather than wait out the backoff.
    addEventListener("online", () => this.retryNow());
    addEventListener("focus", () => this.retryNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.retryNow();
    });
  }

  start() {
    if (this.socket || !identity()) return;
    this.connect();
  }

  setState(state) {
    this.state = state;
    this.emit({ type: "state", state });
  }

  async connect() {
    clearTimeout(this.timer);
    let socket;
    try {
      socket = await openSocket();
    } catch (error) {
      if (error instanceof ServerError && error.status === 401) return signedOut();
      return this.later();
    }
    this.socket = socket;
    socket.onopen = () => {
      this.attempt = 0;
      // Clients speak first (see the server's README): a ping, then the list's subscription
      // and the pages' opens.
      socket.send(JSON.stringify({ type: "ping" }));
      if (this.subscribed.length) socket.send(JSON.stringify({ type: "subscribe", games: this.subscribed }));
      this.setState("live");
    };
    socket.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "pong") {
        // The server's clock, so commands are stamped in its time even when this one is off.
        this.offset = message.serverTime - Date.now();
        localStorage.setItem("crossmate.clockOffset", String(this.offset));
      }
      this.emit(message);
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.later();
    };
  }

  later() {
    this.setState(navigator.onLine === false ? "offline" : "reconnecting");
    // A page someone is looking at tries at least every 2 s (a restarted server is back within
    // seconds, and queued letters wait on it); a hidden one backs off to 10 s.
    const ceiling = document.visibilityState === "visible" ? 2_000 : 10_000;
    const delay = Math.min(ceiling, 250 * 2 ** this.attempt) * (0.5 + Math.random() / 2);
    this.attempt = Math.min(this.attempt + 1, 6);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  retryNow() {
    if (this.socket) return;
    this.attempt = 0;
    this.connect();
  }

  /** Sends a message if the socket is open; false when it is not (the caller keeps it). */
  send(message) {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /** Hear of changes to these games (pokes) on this socket and every later one. */
  subscribe(games) {
    const fresh = games.filter((game) => !this.subscribed.includes(game));
    this.subscribed = [...this.subscribed, ...fresh].slice(-200);
    if (fresh.length) this.send({ type: "subscribe", games: fresh });
  }

  /** Now, in the server's time (as far as this browser last heard it). */
  now() {
    return Date.now() + this.offset;
  }

  get live() {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  listen(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(message) {
    for (const listener of [...this.listeners]) listener(message);
  }
}

export const connection = new Connection();

// The account's settings: the last copy at once, the server's when it answers, and again
// whenever another of the account's devices changes something (a feed poke).
applyTheme();
connection.listen((message) => {
  if (message.type === "feed" || (message.type === "state" && message.state === "live")) settings.load();
});

// A nudge reaches whichever page is open.
connection.listen((message) => {
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

export function signedOut() {
  forget();
  toast("This browser was signed out (its device was revoked). Choose a name to start again.", "error");
  navigate("/", true);
}

// MARK: Pages

let leavePage = () => {};

export async function route() {
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
  const pages = await import("./pages.js");
  if (!me) return pages.welcome(path);
  const join = path.match(/^\/join\/([^/]+)$/);
  if (join) await pages.accept(decodeURIComponent(join[1]));
  else if (path === "/link") await pages.linkPage();
  else if (path === "/friends") leavePage = await pages.friendsPage();
  else leavePage = await pages.gamesPage();
}

if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
route();
