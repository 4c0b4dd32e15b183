// The solving page. The browser holds no game rules: it moves its cursor by the solving keys
// (keys.js), sends every edit to the server as a command, and draws the merged squares the
// server sends back. This file wires the page to the socket and the keys: what is shown is its
// model (gamemodel.js), drawn by its view (gameview.js) through a handlers object, and what
// goes out goes through its outbox (outbox.js). A letter shows at once while its command is on
// its way; the server's answer confirms or corrects it. Commands wait in IndexedDB until
// answered, so a dropped connection or a reload loses nothing.

import { connection } from "./connection.js";
import { navigate } from "./nav.js";
import { el, sentence, stylesheet, toast } from "./dom.js";
import { GameModel } from "./gamemodel.js";
import { GameView } from "./gameview.js";
import { Board, key, press } from "./keys.js";
import { Outbox } from "./outbox.js";
import { commandKey, queued, saveGame, savedGame } from "./queue.js";
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

/** The page: the model it changes, the view that draws it, the outbox its commands go through. */
class GamePage {
  constructor(main, gameID) {
    this.main = main;
    this.gameID = gameID;
    this.model = new GameModel(gameID);
    this.outbox = new Outbox(this.model, () => this.screen.render());
    this.stops = [];
    // A touch screen gets the on-screen keyboard (a phone's own would cover half the grid).
    this.touch = matchMedia("(pointer: coarse)").matches;
    // What the view's elements are pressed for.
    const { outbox } = this;
    this.handlers = {
      issue: (command) => outbox.issue(command),
      press: (pressed) => this.pressKey(pressed),
      tap: (position) => this.tap(position),
      keydown: (event) => this.keydown(event),
      toggleFlag: () => outbox.toggleFlag(),
      scoped: (kind, scope) => outbox.scoped(kind, scope),
      pause: (paused) => this.pause(paused),
      say: (text) => outbox.say(text),
      react: (messageKey, emoji, on) => outbox.react(messageKey, emoji, on),
      follow: (authorID) => this.follow(authorID),
      stopFollowing: () => this.stopFollowing(),
    };
  }

  async start() {
    this.main.replaceChildren(el("p", { class: "loading" }, "Opening the game…"));
    // A wide screen's layout (a phone never loads it).
    const [desktop] = this.touch ? [null] : await Promise.all([import("./desktop.js"), stylesheet("desktop.css")]);
    this.screen = new GameView(this.main, this.model, this.handlers, { touch: this.touch, desktop });
    // What was typed and not yet answered shows first, so the cursor starts after it.
    for (const row of await queued(this.gameID)) {
      this.model.state.queued(row.key, row.command, row.typedAt);
      commandKey(0, row.key);
    }
    const saved = await savedGame(this.gameID);
    if (saved) {
      this.opened(saved, false);
      this.screen.render();
    }
    this.stops.push(connection.listen((message) => this.heard(message)));
    document.body.classList.add("solving");
    this.stops.push(() => document.body.classList.remove("solving"));
    // Back on the tab with the chat in sight: what arrived meanwhile is seen.
    const back = () => !document.hidden && this.screen.chat?.inView && this.screen.seen();
    const hiding = (event) => {
      if (this.outbox.saveTimer && (document.hidden || event.type === "pagehide")) this.outbox.saveNow();
    };
    // In front or not: a page hidden (a phone in a pocket, another tab in front) counts as away
    // once the server's grace is over, and is back when shown (or resumed after a freeze).
    const shown = () => this.sayShown();
    for (const [target, type, listener] of [
      [document, "visibilitychange", back], [document, "visibilitychange", hiding], [window, "pagehide", hiding],
      [document, "visibilitychange", shown], [document, "resume", shown],
    ]) {
      target.addEventListener(type, listener);
      this.stops.push(() => target.removeEventListener(type, listener));
    }
    if (connection.live) this.sendOpen();
    this.ticker = setInterval(() => this.screen.renderTimer(), 1000);
    if (!saved && !connection.live) {
      this.main.replaceChildren(el("p", { class: "loading" }, "Waiting for the server…"));
    }
  }

  leave() {
    this.outbox.stop();
    for (const stop of this.stops) stop();
    this.screen.stop();
    clearInterval(this.ticker);
    clearTimeout(this.model.replay.poll);
    clearTimeout(this.model.replay.playing);
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
    const { model, screen } = this;
    switch (message.type) {
      case "state":
        if (message.state === "live") this.sendOpen();
        else model.state.disconnected();
        screen.renderStatus();
        if (model.view) screen.renderPlayers();  // who is here is not known while reconnecting
        break;
      case "opened":
        if (message.game.gameID !== this.gameID) return;
        saveGame(message.game);
        model.replay.loading = null;  // a page asked for on a socket that closed is asked for again
        this.opened(message.game, true);
        screen.render();
        this.outbox.flush();
        break;
      case "update":
        if (message.game.gameID !== this.gameID) return;
        this.absorb(message.game);
        screen.render();
        break;
      case "applied":
      case "refused": {
        const answer = message.answer ?? message.refusal;
        if (answer.gameID !== this.gameID) return;
        const command = model.state.pending.get(answer.id)?.command;
        const outcome = model.state.answered(message.type, answer);
        if (outcome.ignored) return;
        if (outcome.retryAfter !== undefined) {
          setTimeout(() => this.outbox.flush(), outcome.retryAfter);
          return;
        }
        this.outbox.settled(answer.id, !!outcome.refusal);
        if (outcome.refusal) {
          toast(sentence(outcome.refusal.reason), "error");
          if (command?.kind === "chat") screen.loadChat().then((chat) => chat?.restore(command.text));
        } else this.absorbed(answer);
        screen.render();
        break;
      }
      case "replay":
        // A replay comes in pages, gathered by ending.js (loaded with the finish, which asks for it).
        if (message.replay.gameID !== this.gameID) return;
        // (Chained, so the pages are taken in the order they came.)
        this.replayParts = (this.replayParts ?? import("./ending.js")).then((ending) => {
          ending.heardReplay(screen, message.replay);
          return ending;
        });
        // Not fetched (offline, before the app was cached): the next part tries again.
        this.replayParts.catch(() => (this.replayParts = null));
        break;
      case "cursor":
        if (message.gameID !== this.gameID) return;
        model.peers.set(message.deviceID, { authorID: message.authorID, ...message.cursor, at: Date.now() });
        if (message.authorID === model.following) {
          model.followTo(message.cursor);
          screen.render();
        } else screen.grid?.render();
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
        if (!model.view) this.main.replaceChildren(card("This game cannot be opened", el("p", { class: "error", role: "alert" }, sentence(message.error.message))));
        break;
    }
  }

  opened(game, fresh) {
    const { model } = this;
    const first = !model.view;
    model.state.open(game, fresh);
    model.board = new Board(game.layout);
    model.timerAt = Date.now();
    if (first) {
      model.cursor = { ...model.board.opening((s) => model.letterAt(s)), pencil: false, rebus: null };
      this.screen.build();
    }
    // What others did since this account last looked: a line, and the squares marked until
    // this device types or moves on.
    for (const peer of (fresh ? game.cursors : null) ?? []) {
      model.peers.set(peer.deviceID, { authorID: peer.authorID, ...peer.cursor, at: Date.now() });
    }
    // And the others see where this device is as soon as it opens (or comes back), before it moves.
    if (fresh && !model.view.readOnly) this.outbox.sendCursor();
    if (fresh) model.hereCount = GameModel.here(game.players);
    if (fresh && game.catchUp) {
      model.caught = new Set(game.catchUp.squares.map(([row, col]) => key({ row, col })));
      model.catchUpLine = game.catchUp.sentence;
      model.view.catchUp = null;
    }
  }

  /** An update: changed squares and the game's state as it now is. */
  absorb(change) {
    const { model, screen } = this;
    const heard = model.state.absorb(change);
    // Messages from others that arrive out of sight are counted until the chat is seen.
    const news = heard.filter((message) => message.authorID !== model.view.me).length;
    if (news && !screen.chat?.inView) {
      model.unseen += news;
      screen.renderUnseen();
    }
    this.absorbed(change);
  }

  /** After an update or an answer went into the state: cursors of players gone, the clock, the saved copy. */
  absorbed(change) {
    const { model } = this;
    if (change.players && model.following) {
      const followed = change.players.find((player) => player.authorID === model.following);
      if (!followed || !(followed.here > 0)) this.stopFollowing(`${followed?.displayName ?? "The player you followed"} left; you are no longer following.`);
    }
    if (change.players) {
      // A player none of whose devices is here any more takes their cursor with them.
      for (const [deviceID, peer] of model.peers) {
        if (!change.players.some((player) => player.authorID === peer.authorID && player.here > 0)) model.peers.delete(deviceID);
      }
      // A device arrived: it learns where this one is without waiting for it to move.
      const here = GameModel.here(change.players);
      if (here > (model.hereCount ?? Infinity) && !model.view.readOnly) this.outbox.sendCursor();
      model.hereCount = here;
    }
    if (change.timer) model.timerAt = Date.now();
    this.outbox.saveSoon();
  }

  // MARK: What the player does

  pressKey(pressed) {
    const { model, outbox } = this;
    if (model.paused) return;
    this.stopFollowing();
    const before = model.cursor;
    const drawn = this.screen.renders;
    const { cursor, edit } = press(pressed, model.cursor, model.board, (s) => model.letterAt(s), settings.keyOptions);
    // A key that would write in a grid this player cannot write in says why and stays put (the
    // cursor walking on over letters that do not change read as typing).
    const frozen = edit && model.frozenReason();
    if (frozen) return toast(frozen, "error");
    model.cursor = cursor;
    if (edit) {
      // A revealed square is locked (GameGrid.typing): its own letter again steps on quietly;
      // anything else is refused and the cursor stays where it was.
      const square = model.shown(edit);
      if (square.verdict === "revealed") {
        if (!(edit.kind === "write" && edit.letter.toUpperCase() === square.letter)) {
          model.cursor = { ...before, rebus: cursor.rebus };
          toast("That square was revealed: its answer stays.", "error");
        }
      } else if (edit.kind === "write") {
        // With autocheck on, the server marks a wrong letter as it writes it.
        const command = { kind: "setLetter", row: edit.row, col: edit.col, letter: edit.letter, pencil: edit.pencil };
        if (settings.autocheck) command.autocheck = true;
        outbox.issue(command);
      }
      else outbox.issue({ kind: "delete", row: edit.row, col: edit.col });
    }
    if (before.row !== cursor.row || before.col !== cursor.col || before.direction !== cursor.direction) outbox.sendCursor();
    // A command queued above drew the grid with the new cursor already.
    if (this.screen.renders === drawn) this.screen.render();
  }

  keydown(event) {
    // Keys that go into a composition are the input method's (the text comes when composed).
    if (event.isComposing || event.keyCode === 229) return;
    if (this.model.paused) return event.preventDefault();
    const mod = event.ctrlKey || event.metaKey;
    const shortcut = mod && { z: event.shiftKey ? "redo" : "undo", y: "redo", p: "pencil", ".": "rebus" }[event.key.toLowerCase()];
    if (shortcut) {
      event.preventDefault();
      return shortcut === "undo" || shortcut === "redo" ? this.outbox.issue({ kind: shortcut }) : this.pressKey(shortcut);
    }
    if (mod || event.altKey) return;
    if (event.key === "Escape" && this.model.cursor.rebus === null) {
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
    const { model } = this;
    this.stopFollowing();
    // The rule every client follows (SolvingKeys' tap, in the shared table).
    model.cursor = press({ tap: position }, model.cursor, model.board, (square) => model.letterAt(square)).cursor;
    this.outbox.sendCursor();
    this.screen.render();
    this.screen.focusGrid();
  }

  /** Pause hides the grid and the clues and stops this player's share of the shared clock
   * (the server keeps the pause) until they move again; another player solving keeps it going. */
  pause(paused) {
    const { model } = this;
    if (paused && !model.paused && !model.frozenReason()) this.outbox.issue({ kind: "pause" });
    model.paused = paused;
    model.pausedAt = paused ? model.shownSeconds() : null;
    this.screen.showPaused(paused);
  }

  /** Follow a player: this cursor goes where theirs goes, until this player types or moves (or they leave). */
  follow(authorID) {
    const { model } = this;
    if (model.following === authorID) return this.stopFollowing();
    model.following = authorID;
    const latest = model.latestPeer(authorID);
    if (latest) model.followTo(latest);
    toast(`Following ${model.view.players.find((player) => player.authorID === authorID)?.displayName ?? "them"}: type or move to stop.`);
    this.screen.render();
    this.screen.backToGrid();
  }

  stopFollowing(reason) {
    if (!this.model.following) return;
    this.model.following = null;
    if (reason) toast(reason);
    this.screen.renderPlayers();
  }
}
