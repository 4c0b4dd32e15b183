// The socket every page shares: one WebSocket per tab, reconnecting with backoff.

import { identity, openSocket, ServerError } from "./api.js";
import { signedOut } from "./nav.js";

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
    // The device says it lost its network: the socket is as good as gone, whatever it claims.
    addEventListener("offline", () => this.drop());
    // A socket can die without closing (a phone moving between networks): one that has not
    // answered a ping within `deadline` is dropped and the connection starts again.
    this.heard = Date.now();
    setInterval(() => this.checkAlive(), Connection.pingEvery);
    addEventListener("focus", () => this.retryNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.retryNow();
    });
  }

  start() {
    if (this.socket || !identity()) return;
    this.stopped = false;
    this.connect();
  }

  /** Pings a live socket that has been quiet; drops one that did not answer the last ping. */
  checkAlive() {
    if (!this.live) return;
    const quiet = Date.now() - this.heard;
    if (this.pinged && quiet > Connection.pingEvery + Connection.deadline) return this.drop();
    if (quiet >= Connection.pingEvery - 500) {
      this.pinged = true;
      this.send({ type: "ping" });
    }
  }

  /** Closes the socket for good (signed out): no reconnecting until `start` again. */
  stop() {
    clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = null;
    this.stopped = true;
    if (socket) {
      socket.onclose = null;
      socket.close();
    }
  }

  /** Gives up on the socket now (the network went, or it stopped answering). */
  drop() {
    const socket = this.socket;
    this.socket = null;
    this.pinged = false;
    if (socket) {
      socket.onclose = null;
      socket.close();
    }
    clearTimeout(this.timer);
    this.later();
  }

  setState(state) {
    this.state = state;
    this.emit({ type: "state", state });
  }

  async connect() {
    clearTimeout(this.timer);
    if (this.stopped) return;
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
      this.heard = Date.now();
      this.pinged = false;
      // Clients speak first (see the server's README): a ping, then the list's subscription
      // and the pages' opens.
      socket.send(JSON.stringify({ type: "ping" }));
      if (this.subscribed.length) socket.send(JSON.stringify({ type: "subscribe", games: this.subscribed }));
      this.setState("live");
    };
    socket.onmessage = (event) => {
      this.heard = Date.now();
      this.pinged = false;
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
    if (this.stopped) return;
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

/** How often a quiet socket is pinged, and how long its answer may take (ms). */
Connection.pingEvery = 15_000;
Connection.deadline = 5_000;

export const connection = new Connection();
