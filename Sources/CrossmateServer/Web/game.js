// The solving page. The browser holds no game rules: it moves its cursor by the solving keys
// (keys.js), sends every edit to the server as a command, and draws the merged squares the
// server sends back. A letter shows at once while its command is on its way; the server's
// answer confirms or corrects it. Commands wait in IndexedDB until answered, so a dropped
// connection or a reload loses nothing.

import { api } from "./api.js";
import { connection } from "./connection.js";
import { ChatPanel } from "./chat.js";
import { navigate } from "./nav.js";
import { el, rebuildIf, setAttribute, setStyle, setText, toast } from "./dom.js";
import { EMPTY_SQUARE, GameState } from "./gamestate.js";
import { Board, key, press } from "./keys.js";
import { commandKey, enqueue, queued, saveGame, savedGame, settle } from "./queue.js";
import { ReplayPlayer } from "./replay.js";
import { openSettings, settings } from "./settings.js";

const KEYS = {
  ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up", ArrowDown: "down", Tab: "tab", Backspace: "backspace",
  Delete: "delete", Home: "home", End: "end", Enter: "enter", Escape: "escape", " ": "space", Insert: "rebus",
};

/** Refusals that mean "try again later": the command stays queued. A server error is tried
 * again a few times, more slowly each time, then dropped with a note; every other refusal
 * drops the command at once with its reason, so the queue always drains. */

const clock = (seconds) => {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return (h ? `${h}:${String(m).padStart(2, "0")}` : `${m}`) + `:${String(s).padStart(2, "0")}`;
};

export async function showGame(main, gameID) {
  const page = new GamePage(main, gameID);
  await page.start();
  return () => page.leave();
}

class GamePage {
  constructor(main, gameID) {
    this.main = main;
    this.gameID = gameID;
    this.state = new GameState();
    this.cursor = null;
    this.peers = new Map(); // deviceID → { authorID, row, col, direction, at }
    this.stops = [];
    // Commands the server applied, to leave the queue with the next saved copy of the game
    // (`saveSoon`), and the timer that writes it.
    this.applied = [];
    this.saveTimer = null;
    // A touch screen gets the on-screen keyboard (a phone's own would cover half the grid).
    this.touch = matchMedia("(pointer: coarse)").matches;
  }

  /** The game as the server last sent it (the state's). */
  get view() {
    return this.state.view;
  }

  async start() {
    this.main.replaceChildren(el("p", { class: "loading" }, "Opening the game…"));
    // What was typed and not yet answered shows first, so the cursor starts after it.
    for (const row of await queued(this.gameID)) {
      this.state.queued(row.key, row.command, row.typedAt);
      commandKey(0, row.key);
    }
    const saved = await savedGame(this.gameID);
    if (saved) {
      this.opened(saved, false);
      this.render();
    }
    this.stops.push(connection.listen((message) => this.heard(message)));
    // Menus close on Escape and on a click anywhere else.
    const outside = (event) => {
      this.closeMenus(event.target.closest?.("details.menu"));
      if (this.more && !this.more.contains(event.target)) this.toggleMore(false);
    };
    const escape = (event) => {
      if (event.key === "Escape" && (this.main.querySelector("details.menu[open]") || this.more?.classList.contains("open"))) {
        this.closeMenus();
        this.toggleMore(false);
        this.input?.focus();
      }
    };
    document.body.classList.add("solving");
    this.stops.push(() => document.body.classList.remove("solving"));
    // Back on the tab with the chat in sight: what arrived meanwhile is seen.
    const back = () => !document.hidden && this.chat?.inView && this.seen();
    document.addEventListener("visibilitychange", back);
    const hiding = (event) => {
      if (this.saveTimer && (document.hidden || event.type === "pagehide")) this.saveNow();
    };
    document.addEventListener("visibilitychange", hiding);
    window.addEventListener("pagehide", hiding);
    this.stops.push(
      () => document.removeEventListener("visibilitychange", back),
      () => document.removeEventListener("visibilitychange", hiding),
      () => window.removeEventListener("pagehide", hiding),
    );
    document.addEventListener("click", outside);
    document.addEventListener("keydown", escape);
    this.stops.push(() => document.removeEventListener("click", outside), () => document.removeEventListener("keydown", escape));
    if (connection.live) connection.send({ type: "open", gameID: this.gameID });
    this.ticker = setInterval(() => this.renderTimer(), 1000);
    if (!saved && !connection.live) {
      this.main.replaceChildren(el("p", { class: "loading" }, "Waiting for the server…"));
    }
  }

  leave() {
    if (this.saveTimer) this.saveNow();
    for (const stop of this.stops) stop();
    this.chat?.stop();
    clearInterval(this.ticker);
    clearTimeout(this.replayPoll);
    clearTimeout(this.playing);
    connection.send({ type: "close", gameID: this.gameID });
  }

  // MARK: From the server

  heard(message) {
    switch (message.type) {
      case "state":
        if (message.state === "live") connection.send({ type: "open", gameID: this.gameID });
        else this.state.disconnected();
        this.renderStatus();
        break;
      case "opened":
        if (message.game.gameID !== this.gameID) return;
        saveGame(message.game);
        this.opened(message.game, true);
        this.render();
        this.flush();
        break;
      case "update":
        if (message.game.gameID !== this.gameID) return;
        this.absorb(message.game);
        this.render();
        break;
      case "applied":
      case "refused": {
        const answer = message.answer ?? message.refusal;
        if (answer.gameID !== this.gameID) return;
        const command = this.state.pending.get(answer.id)?.command;
        const outcome = this.state.answered(message.type, answer);
        if (outcome.ignored) return;
        if (outcome.retryAfter !== undefined) {
          setTimeout(() => this.flush(), outcome.retryAfter);
          return;
        }
        // An applied command leaves the queue with the next saved copy of the game, which holds
        // its effect; a refused one has none, and goes now.
        if (outcome.refusal) settle(answer.id);
        else this.applied.push(answer.id);
        if (outcome.refusal) {
          toast(outcome.refusal.reason[0].toUpperCase() + outcome.refusal.reason.slice(1) + ".", "error");
          if (command?.kind === "chat") this.chat.restore(command.text);
        } else this.absorbed(answer);
        this.render();
        break;
      }
      case "replay":
        if (message.replay.gameID !== this.gameID) return;
        this.replayData = message.replay;
        if (!message.replay.ready) {
          clearTimeout(this.replayPoll);
          this.replayPoll = setTimeout(() => connection.send({ type: "replay", gameID: this.gameID }), 3000);
        }
        this.renderReplay();
        break;
      case "cursor":
        if (message.gameID !== this.gameID) return;
        this.peers.set(message.deviceID, { authorID: message.authorID, ...message.cursor, at: Date.now() });
        if (message.authorID === this.following) {
          this.cursor = { ...this.cursor, row: message.cursor.row, col: message.cursor.col, direction: message.cursor.direction };
          this.render();
        } else this.renderGrid();
        break;
      case "nextGame":
        // Another player started the next puzzle from this one: straight into it.
        if (message.next.fromGameID !== this.gameID) return;
        toast(`${message.next.byName} started ${message.next.title} with you.`);
        navigate(`/games/${encodeURIComponent(message.next.gameID)}`);
        break;
      case "error":
        if (!this.view) {
          this.main.replaceChildren(
            el(
              "section",
              { class: "card" },
              el("h2", {}, "This game cannot be opened"),
              el("p", { class: "error", role: "alert" }, message.error.message),
              el("a", { href: "/", "data-route": true, class: "button" }, "Back to your games"),
            ),
          );
        }
        break;
    }
  }

  opened(game, fresh) {
    const first = !this.view;
    this.state.open(game, fresh);
    this.board = new Board(game.layout);
    this.timerAt = Date.now();
    if (first) {
      this.cursor = { ...this.board.opening((s) => this.letterAt(s)), pencil: false, rebus: null };
      this.build();
    }
    // What others did since this account last looked: a line, and the squares marked until
    // this device types or moves on.
    for (const peer of (fresh ? game.cursors : null) ?? []) {
      this.peers.set(peer.deviceID, { authorID: peer.authorID, ...peer.cursor, at: Date.now() });
    }
    if (fresh && game.catchUp) {
      this.caught = new Set(game.catchUp.squares.map(([row, col]) => key({ row, col })));
      this.catchUpLine = game.catchUp.sentence;
      this.view.catchUp = null;
    }
  }

  /** An update: changed squares and the game's state as it now is. */
  absorb(change) {
    const heard = this.state.absorb(change);
    // Messages from others that arrive out of sight are counted until the chat is seen.
    const news = heard.filter((message) => message.authorID !== this.view.me).length;
    if (news && !this.chat?.inView) {
      this.unseen = (this.unseen ?? 0) + news;
      this.renderUnseen();
    }
    this.absorbed(change);
  }

  /** The conversation came into view: nothing in it is unseen. */
  seen() {
    if (!this.unseen) return;
    this.unseen = 0;
    this.renderUnseen();
  }

  /** Unseen messages: on the Chat button and in the tab's title. */
  renderUnseen() {
    const count = this.unseen ?? 0;
    this.chatBadge.textContent = count ? String(count) : "";
    this.chatBadge.hidden = !count;
    this.chatButton.setAttribute("aria-label", count ? `chat, ${count} new ${count === 1 ? "message" : "messages"}` : "chat");
    document.title = `${count ? `(${count}) ` : ""}${this.view.layout.title || "Crossmate"} · Crossmate`;
  }

  /** Sends a chat message as a command: it waits in the queue while offline, like a letter. */
  async say(text) {
    if (this.view.readOnly) return toast("You were removed from this game; you can read it but not write in it.", "error");
    const random = crypto.getRandomValues(new Uint32Array(2));
    const messageID = `${Date.now().toString(36)}-${random[0].toString(36)}${random[1].toString(36)}`;
    await this.queue({ kind: "chat", text, messageID });
  }

  /** This player's flag on the current clue, if one shows. */
  myFlag() {
    const word = this.board.clue(this.cursor, this.cursor.direction);
    return word && this.state.flags.find((flag) => flag.authorID === this.view.me && flag.number === word.number && flag.direction === word.direction);
  }

  /** Flags the current clue for the others ("look at 17 Across"), or takes this player's flag down. */
  async toggleFlag() {
    if (this.view.readOnly) return;
    const word = this.board.clue(this.cursor, this.cursor.direction);
    if (!word) return;
    const on = !this.myFlag();
    await this.queue({ kind: "flag", row: this.cursor.row, col: this.cursor.col, direction: this.cursor.direction, on });
    toast(on ? `Flagged ${word.number} ${word.direction === "across" ? "Across" : "Down"} for the others.` : "Flag taken down.");
  }

  /** Gives or takes back a reaction, as a queued command like a message. */
  async sendReaction(messageKey, emoji, on) {
    if (this.view.readOnly) return;
    await this.queue({ kind: "react", messageKey, emoji, on });
  }

  /** Shows the chat (on a phone it is below the clues) and puts the cursor on its line. */
  openChat() {
    this.toggleMore(false);
    this.chat.element.scrollIntoView({ block: "end", behavior: "smooth" });
    this.chat.field.focus({ preventScroll: true });
    this.seen();
  }

  /** After an update or an answer went into the state: cursors of players gone, the clock, the saved copy. */
  absorbed(change) {
    if (change.players && this.following) {
      const followed = change.players.find((player) => player.authorID === this.following);
      if (!followed || !(followed.here > 0)) this.stopFollowing(`${followed?.displayName ?? "The player you followed"} left; you are no longer following.`);
    }
    if (change.players) {
      // A player none of whose devices is here any more takes their cursor with them.
      for (const [deviceID, peer] of this.peers) {
        if (!change.players.some((player) => player.authorID === peer.authorID && player.here > 0)) this.peers.delete(deviceID);
      }
    }
    if (change.timer) this.timerAt = Date.now();
    this.saveSoon();
  }

  /** Keeps the game as it now shows for a reload while offline: at most once a second (a copy
   * of the whole game per keystroke kept the database too busy to queue the next one), and at
   * once when the page goes. */
  saveSoon() {
    this.saveTimer ??= setTimeout(() => this.saveNow(), 1000);
  }

  saveNow() {
    clearTimeout(this.saveTimer);
    this.saveTimer = null;
    if (!this.view) return;
    saveGame(this.view, this.applied);
    this.applied = [];
  }

  // MARK: Commands

  /** Sends every queued command not yet sent, oldest first. */
  flush() {
    if (!connection.live) return;
    for (const [id, entry] of this.state.unsent()) {
      entry.sent = connection.send({ type: "command", gameID: this.gameID, id, command: entry.command, typedAt: entry.typedAt });
    }
  }

  async issue(command) {
    if (this.view.readOnly) return toast("You were removed from this game; it is read-only for you.", "error");
    if (this.view.completion) return toast("The game is finished; the grid is final.", "error");
    if (this.caught) {
      this.caught = null;
      this.catchUpLine = null;
    }
    await this.queue(command, this.state.typed(command));
  }

  /** Puts a command in the queue and sends what can go, then draws: the command goes to the
   * server at once and to IndexedDB (where it outlives a reload) alongside, not first — the
   * database can take a frame or two while it writes. `local`: the id it was shown under while
   * the queue named it. */
  async queue(command, local = null) {
    const typedAt = Math.round(connection.now());
    const key = commandKey(typedAt);
    const stored = enqueue(key, this.gameID, command, typedAt);
    this.state.queued(key, command, typedAt, local);
    this.flush();
    this.render();
    try {
      await stored;
    } catch {
      toast("This browser could not keep that change for a reload; it was sent to the server.", "error");
    }
  }

  /** The letter a square shows: the newest unanswered edit, else the server's. */
  shown(position) {
    if (this.replayFrame) return this.replayFrame.get(key(position)) ?? EMPTY_SQUARE;
    return this.state.shown(position);
  }

  letterAt(position) {
    return this.shown(position).letter ?? "";
  }

  pressKey(pressed) {
    if (this.paused) return;
    this.stopFollowing();
    const before = this.cursor;
    const { cursor, edit } = press(pressed, this.cursor, this.board, (s) => this.letterAt(s), settings.keyOptions);
    this.cursor = cursor;
    if (edit) {
      // A revealed square is locked (GameGrid.typing): its own letter again steps on quietly;
      // anything else is refused and the cursor stays where it was.
      const square = this.shown(edit);
      if (square.verdict === "revealed") {
        if (!(edit.kind === "write" && edit.letter.toUpperCase() === square.letter)) {
          this.cursor = { ...before, rebus: cursor.rebus };
          toast("That square was revealed: its answer stays.", "error");
        }
      } else if (edit.kind === "write") {
        // With autocheck on, the server marks a wrong letter as it writes it.
        const command = { kind: "setLetter", row: edit.row, col: edit.col, letter: edit.letter, pencil: edit.pencil };
        if (settings.autocheck) command.autocheck = true;
        this.issue(command);
      }
      else this.issue({ kind: "delete", row: edit.row, col: edit.col });
    }
    if (before.row !== cursor.row || before.col !== cursor.col || before.direction !== cursor.direction) this.sendCursor();
    this.render();
  }

  sendCursor() {
    clearTimeout(this.cursorTimer);
    this.cursorTimer = setTimeout(() => {
      const { row, col, direction } = this.cursor;
      connection.send({ type: "cursor", gameID: this.gameID, cursor: { row, col, direction } });
    }, 60);
  }

  /** What revealing or clearing the whole puzzle would do, in words: "Clears 23 of Ben's
   * letters and 4 of yours." */
  puzzleConsequence(kind) {
    const letters = [...this.state.squares.values()].filter((square) => square.letter && square.verdict !== "revealed");
    if (kind === "reveal") {
      const { width, squares } = this.view.layout;
      const empty = squares.filter((square, index) => square.kind === "letter" && !this.letterAt({ row: Math.floor(index / width), col: index % width })).length;
      return `Reveals the answer in every square not already right${empty ? ` (${empty} still empty)` : ""}. The game then counts as solved with reveals, and revealed letters cannot be changed or undone.`;
    }
    const byAuthor = new Map();
    for (const square of letters) byAuthor.set(square.authorID, (byAuthor.get(square.authorID) ?? 0) + 1);
    if (!byAuthor.size) return "There are no letters to clear.";
    const parts = [...byAuthor.entries()]
      .sort((a, b) => (a[0] === this.view.me) - (b[0] === this.view.me) || b[1] - a[1])
      .map(([author, count]) => `${count} of ${author === this.view.me ? "yours" : `${this.nameOf(author)}'s letters`}`);
    const list = parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}` : parts[0];
    return `Clears ${list.replace(/^(\d+) of yours$/, "$1 of your letters")}. Undo brings your own clearing back.`;
  }

  /** A modal question before a whole-puzzle reveal or clear; the grid has the focus after. */
  confirmPuzzle(kind) {
    const dialog = el(
      "dialog",
      { class: "confirm", "data-confirm": kind, "aria-labelledby": "confirm-title" },
      el("h2", { id: "confirm-title" }, kind === "reveal" ? "Reveal the whole puzzle?" : "Clear the whole puzzle?"),
      el("p", { "data-confirm-text": true }, this.puzzleConsequence(kind)),
      el(
        "div",
        { class: "buttons" },
        el("button", { type: "button", "data-confirm-no": true, onclick: () => dialog.close() }, "Keep playing"),
        el("button", { type: "button", class: "danger", "data-confirm-yes": true, onclick: () => {
          dialog.close();
          this.scoped(kind, "puzzle");
        } }, kind === "reveal" ? "Reveal puzzle" : "Clear puzzle"),
      ),
    );
    dialog.addEventListener("close", () => {
      dialog.remove();
      this.input.focus();
    });
    document.body.append(dialog);
    dialog.showModal();
    dialog.querySelector("[data-confirm-no]").focus();
  }

  scoped(kind, scope) {
    const { row, col, direction } = this.cursor;
    this.issue({ kind, scope, row, col, direction });
  }

  // MARK: Drawing

  build() {
    const v = this.view;
    document.title = `${v.layout.title || "Crossmate"} · Crossmate`;
    this.statusBox = el("span", { class: "status", "data-sync": true });
    // What a screen reader hears of the connection: a change of state ("Offline"), never the
    // count of letters being saved at each key.
    this.statusAnnouncer = el("span", { class: "sr-only", role: "status", "data-sync-announcer": true });
    this.timerBox = el("span", { class: "timer", "data-timer": true, "aria-label": "solving time" });
    // Buttons show a symbol and a word; on a phone the word is for screen readers only.
    const labelled = (symbol, word) => [el("span", { class: "symbol", "aria-hidden": "true" }, symbol), el("span", { class: "label" }, word)];
    this.undoButton = el("button", { type: "button", class: "undo", "data-undo": true, title: "Undo (Ctrl+Z)", onclick: () => this.issue({ kind: "undo" }) }, ...labelled("↶", "Undo"));
    this.redoButton = el("button", { type: "button", class: "redo", "data-redo": true, title: "Redo (Ctrl+Shift+Z)", onclick: () => this.issue({ kind: "redo" }) }, ...labelled("↷", "Redo"));
    this.pencilButton = el("button", { type: "button", class: "pencil", "data-pencil": true, "aria-pressed": "false", title: "Pencil (Ctrl+P)", onclick: () => this.pressKey("pencil") }, ...labelled("✎", "Pencil"));
    this.flagButton = el("button", { type: "button", class: "flag", "data-flag": true, "aria-pressed": "false", title: "Flag this clue for the others", onclick: () => this.toggleFlag() }, ...labelled("⚑", "Flag"));
    this.rebusButton = el("button", { type: "button", "data-rebus": true, title: "Rebus (Insert)", onclick: () => this.pressKey("rebus") }, "Rebus");
    const menu = (name, label) =>
      el(
        "details",
        { class: "menu" },
        el("summary", {}, label),
        el(
          "div",
          { class: "items" },
          ...["square", "word", "puzzle"].map((scope) =>
            el("button", { type: "button", "data-action": `${name}-${scope}`, onclick: (event) => {
              event.target.closest("details").open = false;
              // Revealing or clearing the whole puzzle asks first, saying what will go.
              if (scope === "puzzle" && name !== "check") return this.confirmPuzzle(name);
              this.scoped(name, scope);
              this.input.focus();
            } }, scope[0].toUpperCase() + scope.slice(1)),
          ),
        ),
      );
    this.pausedCover = el(
      "div",
      { class: "paused-cover", "data-paused": true, hidden: true },
      el("p", {}, "Paused. Your clock has stopped."),
      el("button", { type: "button", class: "primary", onclick: () => this.pause(false) }, "Go on solving"),
    );
    this.shareButton = el("button", { type: "button", "data-share": true, onclick: () => this.share() }, "Share");
    this.nudgeButton = el("button", { type: "button", "data-nudge-button": true, title: "ask the others to come and help", onclick: () => this.nudge() }, "Nudge");
    this.roster = el("ul", { class: "roster", "aria-label": "players" });
    this.chat = new ChatPanel({
      send: (text) => this.say(text),
      react: (messageKey, emoji, on) => this.sendReaction(messageKey, emoji, on),
      player: (authorID) => ({ name: this.nameOf(authorID), color: this.colorOf(authorID) || "var(--muted)" }),
      me: v.me,
      onSeen: () => this.seen(),
      coveredBelow: () => (this.dock && !this.dock.hidden ? this.dock.offsetHeight : 0),
    });
    // On a phone the system keyboard types in the chat: the on-screen one steps aside.
    this.chat.field.addEventListener("focus", () => document.body.classList.add("chatting"));
    this.chat.field.addEventListener("blur", () => document.body.classList.remove("chatting"));
    this.stops.push(() => document.body.classList.remove("chatting"));
    this.chatBadge = el("span", { class: "badge", "data-chat-unseen": true, hidden: true });
    this.chatButton = el("button", { type: "button", class: "chat-button", "data-chat-button": true, "aria-label": "chat", title: "Chat", onclick: () => this.openChat() }, ...labelled("✉", "Chat"), this.chatBadge);
    this.clueBar = el("div", { class: "cluebar", "aria-live": "polite", "data-clue-bar": true });
    this.notice = el("div", { class: "notice", role: "status" });
    this.catchUpBox = el("div", { class: "catchup", role: "status", "data-catch-up": true });
    this.banner = el("div", { class: "banner", "aria-live": "polite" });
    this.grid = el("div", { class: "grid", role: "grid", "aria-label": "crossword grid", style: `--cols:${v.layout.width};--rows:${v.layout.height}` });
    this.cells = new Map();
    for (let row = 0; row < v.layout.height; row++) {
      const line = el("div", { role: "row", class: "row" });
      for (let col = 0; col < v.layout.width; col++) {
        const square = v.layout.squares[row * v.layout.width + col];
        if (square.kind !== "letter") {
          line.append(el("div", { role: "gridcell", class: `cell ${square.kind}`, "aria-label": square.kind === "block" ? "block" : "no square" }));
          continue;
        }
        const letter = el("span", { class: "letter", dataset: { row, col } });
        const cell = el(
          "div",
          { role: "gridcell", id: `cell-${row}-${col}`, class: `cell${square.circled ? " circled" : ""}${square.shaded ? " shaded" : ""}`, dataset: { r: row, c: col } },
          square.number ? el("span", { class: "num", "aria-hidden": "true" }, square.number) : null,
          letter,
        );
        if (square.bars) for (const [bit, side] of [[1, "top"], [2, "left"], [4, "bottom"], [8, "right"]]) if (square.bars & bit) cell.classList.add(`bar-${side}`);
        cell.addEventListener("pointerdown", (event) => {
          event.preventDefault();
          this.tap({ row, col });
        });
        this.cells.set(key({ row, col }), { cell, letter });
        line.append(cell);
      }
      this.grid.append(line);
    }
    // The keyboard goes to one input laid over the grid, so a phone shows its keyboard.
    // On a touch screen the on-screen keyboard below types, so the system's stays down
    // (inputmode none): no composition events, and the grid keeps its size.
    this.input = el("input", {
      class: "keys", "aria-label": "type answers here; Escape leaves the grid", autocapitalize: "characters",
      autocomplete: "off", autocorrect: "off", spellcheck: "false", enterkeyhint: "next", "data-keys": true,
      inputmode: this.touch ? "none" : null,
    });
    this.input.addEventListener("keydown", (event) => this.keydown(event));
    this.input.addEventListener("input", () => {
      // Phones' keyboards send text, not keys.
      const text = this.input.value;
      this.input.value = "";
      for (const character of text) this.pressKey(character === " " ? "space" : { letter: character });
    });
    this.grid.addEventListener("pointerup", () => this.input.focus());
    const clueList = (direction) =>
      el(
        "section",
        { class: "clues" },
        el("h2", {}, direction === "across" ? "Across" : "Down"),
        el(
          "ol",
          {},
          ...this.board[direction].map((clue) =>
            el(
              "li",
              { dataset: { clue: `${clue.number}-${direction}` }, tabindex: "-1", onclick: () => this.jumpTo(clue.number, direction) },
              el("b", {}, clue.number),
              " ",
              clue.text,
            ),
          ),
        ),
      );
    this.acrossList = clueList("across");
    this.downList = clueList("down");
    // The clue lists from the keyboard: arrows move between clues (and lists), Enter or Space
    // goes to the clue in the grid, Escape goes back to the grid.
    const lists = el("div", { class: "lists" }, this.acrossList, this.downList);
    lists.addEventListener("keydown", (event) => {
      const item = event.target.closest?.(".clues li");
      if (!item) return;
      const all = [...lists.querySelectorAll(".clues li")];
      const index = all.indexOf(item);
      const sideways = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
      let next = null;
      if (event.key === "ArrowDown") next = all[index + 1];
      else if (event.key === "ArrowUp") next = all[index - 1];
      else if (event.key === "Home") next = all[0];
      else if (event.key === "End") next = all.at(-1);
      else if (sideways) next = (sideways > 0 ? this.downList : this.acrossList).querySelector("li");
      else if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        const [number, direction] = item.dataset.clue.split("-");
        return this.jumpTo(Number(number), direction);
      } else if (event.key === "Escape") {
        event.preventDefault();
        return this.input.focus();
      } else return;
      event.preventDefault();
      if (next) {
        for (const other of all) other.tabIndex = -1;
        next.tabIndex = 0;
        next.focus();
      }
    });
    // The tools: Undo and Pencil always in sight; on a phone the rest behind ⋯ (one row).
    this.moreButton = el("button", { type: "button", class: "more-button", "aria-expanded": "false", "aria-controls": "more-tools", "aria-label": "more tools", "data-more": true, onclick: () => this.toggleMore() }, "⋯");
    this.pauseButton = el("button", { type: "button", "data-pause": true, onclick: () => this.pause(true) }, ...labelled("❚❚", "Pause"));
    this.settingsButton = el("button", { type: "button", "data-settings": true, onclick: () => this.openSettings() }, ...labelled("⚙", "Settings"));
    this.more = el(
      "div",
      { class: "more" },
      this.moreButton,
      el(
        "div",
        { class: "overflow", id: "more-tools" },
        this.redoButton, this.rebusButton, this.flagButton, menu("check", "Check"), menu("reveal", "Reveal"), menu("clear", "Clear"),
        this.pauseButton, this.settingsButton, this.shareButton, this.nudgeButton,
      ),
    );
    const tools = el(
      "div",
      {
        class: "tools",
        // After any button the grid has the keys again (after Share, letters were lost).
        onclick: (event) => {
          const button = event.target.closest("button");
          if (!button || event.target.closest("summary") || button === this.moreButton || button === this.chatButton) return;
          this.toggleMore(false);
          // (Paused, the focus stays on the cover's button.)
          setTimeout(() => this.paused || this.input.focus(), 0);
        },
      },
      this.undoButton, this.pencilButton, this.chatButton, this.more,
    );
    this.dock = this.touch ? this.buildDock() : null;
    this.main.replaceChildren(
      el(
        "section",
        { class: `game${this.touch ? " touch" : ""}` },
        el(
          "div",
          { class: "toolbar" },
          el("a", { href: "/", "data-route": true, class: "back", title: "Your games", "aria-label": "your games" }, "←"),
          el("h1", {}, v.layout.title || "Untitled"),
          this.timerBox,
          this.statusBox,
          this.statusAnnouncer,
          tools,
        ),
        // The puzzle's own words: who made it, its copyright, its notes, and why checking is off.
        (() => {
          const byline = [v.layout.author && `by ${v.layout.author}`, v.layout.copyright].filter(Boolean).join(" · ");
          return byline ? el("p", { class: "byline", "data-byline": true }, byline) : null;
        })(),
        v.layout.notes
          ? el("details", { class: "notes", "data-notes": true }, el("summary", {}, "Notes from the puzzle"), el("p", {}, v.layout.notes))
          : null,
        v.layout.hasSolution
          ? null
          : el("p", { class: "notice", "data-no-solution": true }, "This puzzle came without its answers (a locked .puz without its key), so checking and revealing are off."),
        this.notice,
        this.catchUpBox,
        this.banner,
        // Who is playing, above the grid on a wide screen (below it on a phone, where the grid
        // has the height).
        this.roster,
        el(
          "div",
          { class: "board" },
          el("div", { class: "play" }, this.touch ? null : this.clueBar, el("div", { class: "gridwrap" }, this.grid, this.input, this.pausedCover)),
          el("div", { class: "side" }, lists, this.chat.element),
        ),
        this.touch ? null : el("p", { class: "help" }, "Type to fill; arrows move; Space turns; Tab goes to the next word; Insert opens a rebus (Enter writes it); Ctrl+P pencil; Ctrl+Z undo; Escape leaves the grid."),
        this.dock,
      ),
    );
    if (this.dock) {
      // The page leaves room below for the dock, so nothing hides behind it.
      const room = () => this.main.style.setProperty("--dock", `${this.dock.offsetHeight}px`);
      room();
      const observer = new ResizeObserver(room);
      observer.observe(this.dock);
      this.stops.push(() => observer.disconnect());
    }
    this.input.focus();
  }

  /** The phone's dock: the clue bar (‹ and › step clues, a tap on the clue turns the
   * direction) above an on-screen keyboard. Keys never take the focus from the grid. */
  buildDock() {
    const key = (name, label, extra = {}) =>
      el("button", { type: "button", class: "key", "data-key": name, "aria-label": extra.label ?? name, ...extra.attributes }, label);
    const rows = ["QWERTYUIOP", "ASDFGHJKL", "ZXCVBNM"].map((letters) => [...letters].map((letter) => key(letter, letter, { label: letter })));
    this.rebusKey = key("rebus", "Rebus", { label: "rebus" });
    rows[2].unshift(this.rebusKey);
    rows[2].push(key("backspace", "⌫", { label: "backspace" }));
    this.keyboard = el("div", { class: "keyboard", "data-keyboard": true, role: "group", "aria-label": "keyboard" }, ...rows.map((row) => el("div", { class: "keyrow" }, ...row)));
    this.keyboard.addEventListener("pointerdown", (event) => event.preventDefault());
    this.keyboard.addEventListener("mousedown", (event) => event.preventDefault());
    this.keyboard.addEventListener("click", (event) => {
      const name = event.target.closest("[data-key]")?.dataset.key;
      if (!name) return;
      if (name === "rebus") this.pressKey(this.cursor.rebus === null ? "rebus" : "enter");
      else if (name === "backspace") this.pressKey("backspace");
      else this.pressKey({ letter: name });
      this.input.focus({ preventScroll: true });
    });
    const step = (pressed, symbol, label) =>
      el("button", { type: "button", class: "step", "aria-label": label, "data-clue-step": pressed, onclick: () => this.pressKey(pressed) }, symbol);
    this.clueBar.setAttribute("role", "button");
    this.clueBar.setAttribute("tabindex", "0");
    this.clueBar.addEventListener("click", () => this.tap({ row: this.cursor.row, col: this.cursor.col }));
    return el(
      "div",
      { class: "dock", "data-dock": true },
      el("div", { class: "cluerow" }, step("shiftTab", "‹", "previous clue"), this.clueBar, step("tab", "›", "next clue")),
      this.keyboard,
    );
  }

  /** Opens or closes the ⋯ tools (on a phone; on a wide screen they are always in sight). */
  toggleMore(open = !this.more.classList.contains("open")) {
    this.more.classList.toggle("open", open);
    this.moreButton.setAttribute("aria-expanded", String(open));
  }

  jumpTo(number, direction) {
    this.pressKey({ jump: number, direction });
    this.input.focus();
  }

  openSettings() {
    this.toggleMore(false);
    openSettings(() => this.input.focus());
  }

  /** Pause hides the grid and the clues and stops this player's share of the shared clock
   * (the server keeps the pause) until they move again; another player solving keeps it going. */
  pause(paused) {
    if (paused && !this.paused && !this.view.readOnly && !this.view.completion) this.issue({ kind: "pause" });
    this.paused = paused;
    this.main.querySelector(".game").classList.toggle("paused", paused);
    this.pausedCover.hidden = !paused;
    if (paused) {
      this.pausedAt = this.shownSeconds();
      this.pausedCover.querySelector("button").focus();
    } else {
      this.pausedAt = null;
      this.input.focus();
    }
    this.renderTimer();
  }

  keydown(event) {
    if (this.paused) return event.preventDefault();
    const mod = event.ctrlKey || event.metaKey;
    if (mod && event.key.toLowerCase() === "z") {
      event.preventDefault();
      return this.issue({ kind: event.shiftKey ? "redo" : "undo" });
    }
    if (mod && event.key.toLowerCase() === "y") {
      event.preventDefault();
      return this.issue({ kind: "redo" });
    }
    if (mod && event.key.toLowerCase() === "p") {
      event.preventDefault();
      return this.pressKey("pencil");
    }
    if (mod && event.key === ".") {
      event.preventDefault();
      return this.pressKey("rebus");
    }
    if (mod || event.altKey) return;
    if (event.key === "Escape" && this.cursor.rebus === null) {
      // The documented way out of the grid: focus moves to the current clue.
      event.preventDefault();
      this.main.querySelector(".clues li.current")?.focus();
      return;
    }
    let pressed = KEYS[event.key];
    if (pressed === "tab" && event.shiftKey) pressed = "shiftTab";
    if (!pressed && [...event.key].length === 1) pressed = { letter: event.key };
    if (!pressed) return;
    event.preventDefault();
    this.pressKey(pressed);
  }

  tap(position) {
    this.stopFollowing();
    const same = this.cursor.row === position.row && this.cursor.col === position.col;
    const next = { ...this.cursor, ...position };
    if (same) next.direction = next.direction === "across" ? "down" : "across";
    else if (!this.board.clue(position, next.direction)) next.direction = next.direction === "across" ? "down" : "across";
    this.cursor = next;
    this.sendCursor();
    this.render();
    this.input.focus();
  }

  async nudge() {
    const message = prompt("Nudge the other players (a short message, or leave it empty):", "");
    if (message === null) return;
    try {
      await api("POST", `/v1/games/${encodeURIComponent(this.gameID)}/nudges`, { message });
      toast("Nudged.");
    } catch (failure) {
      toast(failure.message, "error");
    }
  }

  /** Open menus close on Escape and on a click anywhere else. */
  closeMenus(except) {
    for (const menu of this.main.querySelectorAll("details.menu[open]")) if (menu !== except) menu.open = false;
  }

  /** The share dialog (share.js, loaded the first time): any player makes and copies links. */
  async share() {
    try {
      const { openShare } = await import("./share.js");
      openShare({ gameID: this.gameID, title: this.view.layout.title || "Untitled" }, () => this.input.focus());
    } catch (failure) {
      toast(failure.message, "error");
    }
  }

  render() {
    if (!this.view || !this.grid) return;
    this.renderGrid();
    this.renderClues();
    this.renderStatus();
    this.renderTimer();
    this.renderPlayers();
    this.renderEnding();
    this.chat.render(this.state.messages, this.state.waitingMessages(), this.view.readOnly, this.state.reactions, this.view.quickReactions ?? []);
    const frozen = this.view.readOnly || !!this.view.completion;
    for (const control of this.main.querySelectorAll(".tools button:not([data-share]):not([data-nudge-button]):not([data-more]):not([data-settings]):not([data-chat-button]), .tools summary")) {
      control.toggleAttribute("disabled", frozen);
      control.closest("details")?.classList.toggle("disabled", frozen);
    }
    // Any player can invite; a removed player can neither invite nor nudge.
    this.shareButton.hidden = this.view.readOnly;
    this.nudgeButton.hidden = this.view.readOnly;
    this.undoButton.disabled = !this.view.canUndo || frozen;
    this.redoButton.disabled = !this.view.canRedo || frozen;
    setAttribute(this.pencilButton, "aria-pressed", String(this.cursor.pencil));
    this.pencilButton.classList.toggle("on", this.cursor.pencil);
    this.rebusButton.classList.toggle("on", this.cursor.rebus !== null);
    if (this.dock) {
      // The keyboard goes once the grid is final; the rebus key writes an open entry.
      this.dock.hidden = frozen;
      setText(this.rebusKey, this.cursor.rebus === null ? "Rebus" : "Enter");
      this.rebusKey.classList.toggle("on", this.cursor.rebus !== null);
    }
    for (const button of this.main.querySelectorAll("[data-action^=check],[data-action^=reveal]")) {
      button.disabled = frozen || !this.view.layout.hasSolution;
      setAttribute(button, "title", this.view.layout.hasSolution ? "" : "This puzzle came without its answers (a locked .puz without its key), so it cannot be checked or revealed.");
    }
  }

  colorOf(authorID) {
    return this.view.players.find((player) => player.authorID === authorID)?.color ?? "";
  }

  nameOf(authorID) {
    if (authorID === this.view.me) return "you";
    return this.view.players.find((player) => player.authorID === authorID)?.displayName ?? "another player";
  }

  renderGrid() {
    this.grid.dataset.cursor = `${this.cursor.row},${this.cursor.col},${this.cursor.direction}`;
    // A screen reader hears the current square through the input that has the focus.
    setAttribute(this.input, "aria-activedescendant", `cell-${this.cursor.row}-${this.cursor.col}`);
    const word = this.board.clue(this.cursor, this.cursor.direction);
    const inWord = new Set((word?.cells ?? []).map(key));
    const peerAt = new Map();
    const peerWord = new Map();
    const now = Date.now();
    for (const peer of this.peers.values()) {
      if (now - peer.at >= 120_000) continue;
      peerAt.set(key(peer), peer);
      // Their current word, underlined in their colour.
      for (const cell of this.board.clue(peer, peer.direction)?.cells ?? []) peerWord.set(key(cell), peer);
    }
    // Flagged words: a corner mark in the flagger's colour (the first flag on a square shows).
    const flagged = new Map();
    for (const flag of this.state.flags) for (const [row, col] of flag.cells) if (!flagged.has(`${row},${col}`)) flagged.set(`${row},${col}`, flag);
    // Only what changed is written (see dom.js): one letter typed touches a square or two.
    for (const [where, entry] of this.cells) {
      const { cell, letter } = entry;
      const [row, col] = where.split(",").map(Number);
      const flag = flagged.get(where);
      cell.classList.toggle("flagged", !!flag);
      setStyle(cell, "--flag", flag ? this.colorOf(flag.authorID) : "transparent");
      const square = this.shown({ row, col });
      const text = this.cursor.rebus !== null && row === this.cursor.row && col === this.cursor.col ? this.cursor.rebus : square.letter;
      setText(letter, text);
      setStyle(letter, "color", square.pendingEdit ? "" : this.colorOf(square.authorID));
      cell.classList.toggle("rebus", [...text].length > 1);
      cell.classList.toggle("pencil", !!square.pencil);
      cell.classList.toggle("pending", !!square.pendingEdit);
      cell.classList.toggle("wrong", square.verdict === "checkedWrong");
      cell.classList.toggle("right", square.verdict === "checkedRight");
      cell.classList.toggle("revealed", square.verdict === "revealed");
      cell.classList.toggle("current", row === this.cursor.row && col === this.cursor.col);
      cell.classList.toggle("word", inWord.has(where));
      cell.classList.toggle("caught", !!this.caught?.has(where));
      const peer = peerAt.get(where);
      cell.classList.toggle("peer", !!peer);
      setStyle(cell, "--peer", peer ? this.colorOf(peer.authorID) : "transparent");
      const along = peerWord.get(where);
      cell.classList.toggle("peerword", !!along);
      setStyle(cell, "--peerword", along ? this.colorOf(along.authorID) : "transparent");
      // What a screen reader hears of the square, described again only when it would change.
      const heard = [text, square.pencil, square.verdict, square.pendingEdit, this.cursor.direction,
        text && square.authorID ? this.nameOf(square.authorID) : "", flag ? this.nameOf(flag.authorID) : ""].join("|");
      if (entry.heard !== heard) {
        entry.heard = heard;
        setAttribute(cell, "aria-label", this.describe({ row, col }, square, text));
      }
      setAttribute(cell, "aria-selected", String(row === this.cursor.row && col === this.cursor.col));
    }
  }

  /** "17 Across, square 3 of 5, A, pencil" (the clue on a word's first square). */
  describe(position, square, text) {
    const direction = this.board.clue(position, this.cursor.direction) ? this.cursor.direction : this.cursor.direction === "across" ? "down" : "across";
    const clue = this.board.clue(position, direction);
    const parts = [];
    if (clue) {
      const index = this.board.indexInWord(position, direction);
      parts.push(`${clue.number} ${direction === "across" ? "Across" : "Down"}, square ${index + 1} of ${clue.cells.length}`);
      if (index === 0) parts.push(clue.text);
    }
    parts.push(text ? text : "blank");
    if (square.pencil) parts.push("pencil");
    if (square.verdict === "checkedWrong") parts.push("marked wrong");
    if (square.verdict === "checkedRight") parts.push("checked right");
    if (square.verdict === "revealed") parts.push("revealed");
    if (text && square.authorID && !square.pendingEdit) parts.push(`by ${this.nameOf(square.authorID)}`);
    const flag = this.state.flags.find((f) => f.cells.some(([row, col]) => row === position.row && col === position.col));
    if (flag) parts.push(`flagged by ${this.nameOf(flag.authorID)}`);
    return parts.join(", ");
  }

  renderClues() {
    const word = this.board.clue(this.cursor, this.cursor.direction);
    const label = word ? `${word.number} ${word.direction === "across" ? "Across" : "Down"}` : "";
    // Rebuilt only when the clue changes, so a screen reader announces a new clue, not every key.
    const shown = word ? `${word.number}-${word.direction}:${word.text}` : "";
    const flags = word ? this.state.flags.filter((flag) => flag.number === word.number && flag.direction === word.direction) : [];
    const flaggedBy = flags.map((flag) => this.nameOf(flag.authorID)).join(", ");
    if (this.clueBar.dataset.shown !== shown + flaggedBy) {
      this.clueBar.dataset.shown = shown + flaggedBy;
      this.clueBar.replaceChildren(
        el("b", {}, label), " ", word?.text ?? "",
        ...(flags.length ? [el("span", { class: "flagnote", "data-flagged-by": flaggedBy, style: `color:${this.colorOf(flags[0].authorID)}` }, ` ⚑ ${flaggedBy}`)] : []),
      );
    }
    const mine = !!this.myFlag();
    setAttribute(this.flagButton, "aria-pressed", String(mine));
    this.flagButton.classList.toggle("on", mine);
    const cross = this.board.clue(this.cursor, this.cursor.direction === "across" ? "down" : "across");
    for (const item of this.main.querySelectorAll(".clues li")) {
      const current = word && item.dataset.clue === `${word.number}-${word.direction}`;
      const crossing = cross && item.dataset.clue === `${cross.number}-${cross.direction}`;
      if (current && !item.classList.contains("current")) {
        // Scroll the list only, never the page (on a phone the grid must stay in view).
        const box = item.closest(".clues");
        const top = item.offsetTop - box.offsetTop;
        if (top < box.scrollTop || top + item.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = top - box.clientHeight / 3;
      }
      item.classList.toggle("current", !!current);
      if (current && document.activeElement?.closest?.(".lists") == null) {
        // Tab reaches the lists at the current clue (one stop; arrows go on from there).
        for (const other of this.main.querySelectorAll(".clues li[tabindex='0']")) if (other !== item) other.tabIndex = -1;
        if (item.tabIndex !== 0) item.tabIndex = 0;
      }
      item.classList.toggle("crossing", !!crossing);
      const clue = this.board[item.dataset.clue.split("-")[1]].find((c) => `${c.number}-${c.direction}` === item.dataset.clue);
      item.classList.toggle("done", !!clue && clue.cells.every((cell) => this.letterAt(cell) !== ""));
      // A flagged clue: ⚑ and who flagged it, in their colour.
      const flag = this.state.flags.find((f) => `${f.number}-${f.direction}` === item.dataset.clue);
      const note = flag ? `⚑ ${this.nameOf(flag.authorID)}` : "";
      if ((item.dataset.flagged ?? "") !== note) {
        item.querySelector(".flagnote")?.remove();
        if (flag) item.append(el("span", { class: "flagnote", style: `color:${this.colorOf(flag.authorID)}` }, ` ${note}`));
        if (flag) item.dataset.flagged = note;
        else delete item.dataset.flagged;
      }
      item.classList.toggle("flagged", !!flag);
      item.style.setProperty("--flag", flag ? this.colorOf(flag.authorID) : "transparent");
    }
  }

  renderStatus() {
    if (!this.statusBox) return;
    const unsent = this.state.pending.size;
    let text;
    let state;
    if (this.view?.readOnly) [text, state] = ["Read-only", "readonly"];
    else if (connection.state === "live" && !this.view?.stale) [text, state] = [unsent ? `Saving ${unsent}…` : "Live", "live"];
    else if (connection.state === "offline") [text, state] = [`Offline${unsent ? ` · ${unsent} unsent` : ""}`, "offline"];
    else [text, state] = [`Reconnecting…${unsent ? ` · ${unsent} unsent` : ""}`, "reconnecting"];
    setText(this.statusBox, text);
    if (this.statusBox.dataset.sync !== state && this.statusAnnouncer) {
      this.statusAnnouncer.textContent = { live: "Live", readonly: "Read-only", offline: "Offline", reconnecting: "Reconnecting" }[state];
    }
    this.statusBox.dataset.sync = state;
    setText(this.notice, this.view?.readOnly ? "You were removed from this game by its owner. You can still look at it, but not change it." : "");
    if (this.catchUpBox) setText(this.catchUpBox, this.catchUpLine ? `Since you were last here: ${this.catchUpLine}.` : "");
  }

  shownSeconds() {
    const { seconds, countsFor } = this.view.timer ?? { seconds: 0, countsFor: 0 };
    const since = Math.floor((Date.now() - (this.timerAt ?? Date.now())) / 1000);
    return seconds + Math.min(since, countsFor);
  }

  renderTimer() {
    if (!this.view || !this.timerBox) return;
    setText(this.timerBox, clock(this.paused ? this.pausedAt : this.shownSeconds()));
  }

  renderPlayers() {
    const owner = this.view.players.find((player) => player.role === "owner")?.authorID === this.view.me;
    // Rebuilt only when what it shows changed (a roster per letter typed kept the page busy).
    const signature = JSON.stringify([this.view.players, this.view.me, this.following, owner]);
    rebuildIf(this.roster, signature, () =>
      this.view.players.filter((player) => !player.removed || player.authorID === this.view.me).map((player) =>
        el(
          "li",
          { dataset: { player: player.authorID } },
          el("span", { class: "avatar", style: `background:${player.color}`, "aria-hidden": "true" }, player.symbol ?? ""),
          player.authorID === this.view.me ? `${player.displayName} (you)` : player.displayName,
          player.here && player.authorID !== this.view.me ? el("small", { class: "here", title: "has the game open now" }, " · here") : null,
          player.role === "owner" ? el("small", {}, " owner") : null,
          player.removed ? el("small", {}, " removed") : null,
          player.here && player.authorID !== this.view.me && !player.removed
            ? el(
                "button",
                {
                  type: "button", class: "small", "data-follow": player.authorID, "aria-pressed": String(this.following === player.authorID),
                  title: this.following === player.authorID ? "Stop following" : `Your cursor goes where ${player.displayName}'s goes, until you type or move`,
                  onclick: () => this.follow(player),
                },
                this.following === player.authorID ? "Following" : "Follow",
              )
            : null,
          owner && player.authorID !== this.view.me && !player.removed
            ? el("button", { type: "button", class: "small", "data-remove": player.authorID, onclick: () => this.remove(player) }, "Remove")
            : null,
        ),
      ),
    );
  }

  /** Follow a player: this cursor goes where theirs goes, until this player types or moves (or they leave). */
  follow(player) {
    if (this.following === player.authorID) return this.stopFollowing();
    this.following = player.authorID;
    const latest = [...this.peers.values()].filter((peer) => peer.authorID === player.authorID).sort((a, b) => b.at - a.at)[0];
    if (latest) this.cursor = { ...this.cursor, row: latest.row, col: latest.col, direction: latest.direction };
    toast(`Following ${player.displayName}: type or move to stop.`);
    this.render();
  }

  stopFollowing(reason) {
    if (!this.following) return;
    this.following = null;
    if (reason) toast(reason);
    this.renderPlayers();
  }

  async remove(player) {
    if (!confirm(`Remove ${player.displayName} from this game? Their letters stay; they can no longer change the grid.`)) return;
    try {
      await api("DELETE", `/v1/games/${encodeURIComponent(this.gameID)}/participants/${encodeURIComponent(player.authorID)}`);
      toast(`${player.displayName} was removed.`);
    } catch (failure) {
      toast(failure.message, "error");
    }
  }

  renderEnding() {
    const completion = this.view.completion;
    if (!completion) {
      this.sawPlaying = true;
      if (this.banner.firstChild) this.banner.replaceChildren();
      return;
    }
    if (this.banner.dataset.shown === JSON.stringify(completion) + JSON.stringify(this.view.scoreboard ?? [])) return;
    this.banner.dataset.shown = JSON.stringify(completion) + JSON.stringify(this.view.scoreboard ?? []);
    const solved = completion.kind === "solved";
    // A solve with help says so; never like a clean one.
    const reveals = (this.view.scoreboard ?? []).reduce((sum, score) => sum + (score.revealsUsed ?? 0), 0);
    const checks = (this.view.scoreboard ?? []).reduce((sum, score) => sum + (score.checksUsed ?? 0), 0);
    const help = reveals ? ` with ${reveals} ${reveals === 1 ? "reveal" : "reveals"}` : checks ? ` with ${checks} ${checks === 1 ? "check" : "checks"}` : "";
    const heading = solved ? (help ? `Solved${help}, in ${clock(this.view.timer?.seconds ?? 0)}` : `Solved in ${clock(this.view.timer?.seconds ?? 0)}!`) : "This game is finished.";
    this.banner.replaceChildren(
      el("h2", { "data-completed": completion.kind, "data-help": help ? "used" : "none" }, heading),
      el(
        "ol",
        { class: "scores" },
        ...(this.view.scoreboard ?? []).map((score) =>
          el(
            "li",
            {},
            el("i", { class: "swatch", style: `background:${this.colorOf(score.authorID)}` }),
            `${this.nameOf(score.authorID)}: ${score.lettersAuthored} letters`,
            score.checksUsed ? `, ${score.checksUsed} ${score.checksUsed === 1 ? "check" : "checks"}` : "",
            score.revealsUsed ? `, ${score.revealsUsed} ${score.revealsUsed === 1 ? "reveal" : "reveals"}` : "",
          ),
        ),
      ),
      this.replayBox = el("div", { class: "replay", "data-replay": true }, "Loading the replay…"),
      el(
        "p",
        { class: "next" },
        // Everyone still in this game comes along; those on this page go straight in.
        this.view.readOnly ? null : el("a", { href: `/?with=${encodeURIComponent(this.gameID)}`, "data-route": true, class: "button primary", "data-next": true }, "Next puzzle together"),
        " ",
        el("a", { href: "/", "data-route": true }, "Back to your games"),
      ),
    );
    if (!this.replayData?.ready) connection.send({ type: "replay", gameID: this.gameID });
    else this.renderReplay();
    // A solve seen as it happens gets a ripple across the grid (not a game opened finished).
    if (solved && this.sawPlaying && !this.celebrated) {
      this.celebrated = true;
      for (const [where, { cell }] of this.cells) {
        const [row, col] = where.split(",").map(Number);
        cell.style.setProperty("--wave", String(row + col));
      }
      const game = this.main.querySelector(".game");
      game.classList.add("celebrate");
      setTimeout(() => game.classList.remove("celebrate"), 2500);
    }
  }

  /** The replay scrubber: drag from the finished grid back to the empty one, or play it. */
  renderReplay() {
    const replay = this.replayData;
    if (!this.replayBox || !replay) return;
    if (!replay.ready) {
      this.replayBox.textContent = replay.waitingFor
        ? `Replay: waiting for ${replay.waitingFor} ${replay.waitingFor === 1 ? "device" : "devices"} to sync their history.`
        : "Replay: waiting for the game's history.";
      return;
    }
    if (this.replayBox.dataset.steps === String(replay.steps.length)) return;
    this.replayBox.dataset.steps = String(replay.steps.length);
    const count = replay.steps.length;
    const slider = el("input", { type: "range", min: "0", max: String(count), value: String(count), "aria-label": "replay position", "data-replay-slider": true });
    const label = el("span", { class: "replay-at" });
    const speed = el("select", { "aria-label": "replay speed" }, ...[1, 10, 100].map((x) => el("option", { value: String(x) }, `${x}×`)));
    const play = el("button", { type: "button", "data-replay-play": true }, "▶ Play");
    const player = new ReplayPlayer(replay.steps);
    const show = (step) => {
      slider.value = String(step);
      this.replayFrame = step >= count ? null : player.seek(step);
      label.textContent = `move ${step} of ${count}`;
      this.renderGrid();
    };
    const stop = () => {
      clearTimeout(this.playing);
      this.playing = null;
      play.textContent = "▶ Play";
    };
    const advance = () => {
      const step = Number(slider.value);
      if (step >= count) return stop();
      show(step + 1);
      const gap = step + 1 < count ? replay.times[step + 1] - replay.times[step] : 0;
      this.playing = setTimeout(advance, Math.min(1500, Math.max(16, gap / Number(speed.value))));
    };
    slider.addEventListener("input", () => {
      stop();
      show(Number(slider.value));
    });
    play.addEventListener("click", () => {
      if (this.playing) return stop();
      if (Number(slider.value) >= count) show(0);
      play.textContent = "❚❚ Pause";
      advance();
    });
    label.textContent = `move ${count} of ${count}`;
    this.replayBox.replaceChildren(el("b", {}, "Replay "), play, " ", speed, " ", slider, " ", label);
  }
}

