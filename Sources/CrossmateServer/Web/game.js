// The solving page. The browser holds no game rules: it moves its cursor by the solving keys
// (keys.js), sends every edit to the server as a command, and draws the merged squares the
// server sends back (gameview.js draws; this file wires the page to the socket, the queue and
// the keys). A letter shows at once while its command is on its way; the server's answer
// confirms or corrects it. Commands wait in IndexedDB until answered, so a dropped connection
// or a reload loses nothing.

import { connection } from "./connection.js";
import { navigate } from "./nav.js";
import { closeSheet, openSheet } from "./phone.js";
import { el, sentence, stylesheet, toast } from "./dom.js";
import { GameView } from "./gameview.js";
import { EMPTY_SQUARE, GameState } from "./gamestate.js";
import { Board, key, press } from "./keys.js";
import { commandKey, enqueue, queued, saveGame, savedGame, settle } from "./queue.js";
import { settings } from "./settings.js";

const KEYS = {
  ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up", ArrowDown: "down", Tab: "tab", Backspace: "backspace",
  Delete: "delete", Home: "home", End: "end", Enter: "enter", Escape: "escape", " ": "space", Insert: "rebus",
};

/** The page in place of a game that cannot be shown: why, and the way back. */
const card = (heading, why) =>
  el("section", { class: "card" }, el("h2", {}, heading), why, el("a", { href: "/", "data-route": true, class: "button" }, "Back to your games"));

export async function showGame(main, gameID) {
  const page = new GamePage(main, gameID);
  await page.start();
  return () => page.leave();
}

class GamePage extends GameView {
  constructor(main, gameID) {
    super();
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
    // A wide screen's layout (a phone never loads it).
    if (!this.touch) [this.desktop] = await Promise.all([import("./desktop.js"), stylesheet("desktop.css")]);
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
      // A click on nothing that takes the keys leaves them with the grid, not the page.
      setTimeout(() => {
        const nowhere = document.activeElement === document.body || document.activeElement === this.main;
        if (nowhere && !this.paused && !document.querySelector("dialog[open]")) this.focusGrid();
      }, 0);
    };
    const escape = (event) => {
      if (event.key === "Escape" && this.openSheetName) {
        closeSheet(this);
        return;
      }
      if (event.key === "Escape" && (this.main.querySelector("details.menu[open]") || this.more?.classList.contains("open"))) {
        this.closeMenus();
        this.toggleMore(false);
        this.focusGrid();
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
    // In front or not: a page hidden (a phone in a pocket, another tab in front) counts as away
    // once the server's grace is over, and is back when shown (or resumed after a freeze).
    const shown = () => this.sayShown();
    document.addEventListener("visibilitychange", shown);
    document.addEventListener("resume", shown);
    this.stops.push(
      () => document.removeEventListener("visibilitychange", back),
      () => document.removeEventListener("visibilitychange", hiding),
      () => window.removeEventListener("pagehide", hiding),
      () => document.removeEventListener("visibilitychange", shown),
      () => document.removeEventListener("resume", shown),
    );
    document.addEventListener("click", outside);
    document.addEventListener("keydown", escape);
    this.stops.push(() => document.removeEventListener("click", outside), () => document.removeEventListener("keydown", escape));
    if (connection.live) this.sendOpen();
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

  /// Opens the game on the socket; a page already hidden says so at once.
  sendOpen() {
    connection.send({ type: "open", gameID: this.gameID });
    if (document.hidden) this.sayShown();
  }

  /// Tells the server whether the page is in front.
  sayShown() {
    if (connection.live) connection.send({ type: "viewing", gameID: this.gameID, viewing: !document.hidden });
  }

  // MARK: From the server

  heard(message) {
    switch (message.type) {
      case "state":
        if (message.state === "live") this.sendOpen();
        else this.state.disconnected();
        this.renderStatus();
        if (this.view) this.renderPlayers();  // who is here is not known while reconnecting
        break;
      case "opened":
        if (message.game.gameID !== this.gameID) return;
        saveGame(message.game);
        this.replayLoading = null;  // a page asked for on a socket that closed is asked for again
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
          toast(sentence(outcome.refusal.reason), "error");
          if (command?.kind === "chat") this.loadChat().then((chat) => chat?.restore(command.text));
        } else this.absorbed(answer);
        this.render();
        break;
      }
      case "replay":
        // A replay comes in pages, gathered by ending.js (loaded with the finish, which asks for it).
        if (message.replay.gameID !== this.gameID) return;
        // (Chained, so the pages are taken in the order they came.)
        this.replayParts = (this.replayParts ?? import("./ending.js")).then((ending) => {
          ending.heardReplay(this, message.replay);
          return ending;
        });
        // Not fetched (offline, before the app was cached): the next part tries again.
        this.replayParts.catch(() => (this.replayParts = null));
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
      case "closed":
        if (message.gameID !== this.gameID) return;
        // The page stops listening (keys, the socket, its timers) and says why.
        this.leave();
        this.main.replaceChildren(card("This game is closed", el("p", { role: "status" }, message.reason)));
        break;
      case "error":
        if (!this.view) this.main.replaceChildren(card("This game cannot be opened", el("p", { class: "error", role: "alert" }, sentence(message.error.message))));
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
    // And the others see where this device is as soon as it opens (or comes back), before it moves.
    if (fresh && !this.view.readOnly) this.sendCursor();
    if (fresh) this.hereCount = (game.players ?? []).reduce((sum, player) => sum + (player.here ?? 0), 0);
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

  /** Shows the chat (on a phone, its sheet over the grid) and puts the cursor on its line. */
  async openChat() {
    this.toggleMore(false);
    if (this.touch) openSheet(this, "chat");
    const chat = await this.loadChat();
    if (!chat) return;
    if (!this.touch) chat.element.scrollIntoView({ block: "end", behavior: "smooth" });
    chat.field.focus({ preventScroll: true });
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
      // A device arrived: it learns where this one is without waiting for it to move.
      const here = change.players.reduce((sum, player) => sum + (player.here ?? 0), 0);
      if (here > (this.hereCount ?? Infinity) && !this.view.readOnly) this.sendCursor();
      this.hereCount = here;
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
    const drawn = this.renders;
    const { cursor, edit } = press(pressed, this.cursor, this.board, (s) => this.letterAt(s), settings.keyOptions);
    // A key that would write in a grid this player cannot write in says why and stays put (the
    // cursor walking on over letters that do not change read as typing).
    if (edit && (this.view.readOnly || this.view.completion)) {
      toast(this.view.readOnly ? "You were removed from this game; it is read-only for you." : "The game is finished; the grid is final.", "error");
      return;
    }
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
    // A command queued above drew the grid with the new cursor already.
    if (this.renders === drawn) this.render();
  }

  sendCursor() {
    clearTimeout(this.cursorTimer);
    this.cursorTimer = setTimeout(() => {
      const { row, col, direction } = this.cursor;
      connection.send({ type: "cursor", gameID: this.gameID, cursor: { row, col, direction } });
    }, 60);
  }

  /** A modal question before a whole-puzzle reveal or clear (confirm.js, loaded when first asked). */
  async confirmPuzzle(kind) {
    const [{ confirmPuzzle }] = await Promise.all([import("./confirm.js"), stylesheet("pages.css")]);
    confirmPuzzle(this, kind);
  }

  scoped(kind, scope) {
    const { row, col, direction } = this.cursor;
    this.issue({ kind, scope, row, col, direction });
  }

  // MARK: Drawing

  /** Opens or closes the ⋯ tools (on a phone; on a wide screen they are always in sight). */
  toggleMore(open = !this.more.classList.contains("open")) {
    this.more.classList.toggle("open", open);
    this.moreButton.setAttribute("aria-expanded", String(open));
  }

  jumpTo(number, direction) {
    this.pressKey({ jump: number, direction });
    this.focusGrid();
  }

  async openSettings() {
    this.toggleMore(false);
    const { openSettings } = await import("./settingsdialog.js");
    openSettings(() => this.focusGrid());
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
      this.focusGrid();
    }
    this.renderTimer();
  }

  keydown(event) {
    // Keys that go into a composition are the input method's (the text comes when composed).
    if (event.isComposing || event.keyCode === 229) return;
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
      this.main.querySelector(".clues li.current button")?.focus();
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
    // The rule every client follows (SolvingKeys' tap, in the shared table).
    this.cursor = press({ tap: position }, this.cursor, this.board, (square) => this.letterAt(square)).cursor;
    this.sendCursor();
    this.render();
    this.focusGrid();
  }

  /** Nudge (sides.js): asks the others to come and help. */
  async nudge() {
    (await import("./sides.js")).nudge(this);
  }


  /** Open menus close on Escape and on a click anywhere else. */
  closeMenus(except) {
    for (const menu of this.main.querySelectorAll("details.menu[open]")) if (menu !== except) menu.open = false;
  }

  /** The share dialog (share.js, loaded the first time): any player makes and copies links. */
  async share() {
    try {
      const { openShare } = await import("./share.js");
      openShare({ gameID: this.gameID, title: this.view.layout.title || "Untitled" }, () => this.focusGrid());
    } catch (failure) {
      toast(failure.message, "error");
    }
  }

  stopFollowing(reason) {
    if (!this.following) return;
    this.following = null;
    if (reason) toast(reason);
    this.renderPlayers();
  }



}

