// What the solving page sends: every edit, message, flag and reaction as a command through the
// queue (queue.js) — shown at once, sent while the socket is live, kept in IndexedDB until the
// server answers — this player's cursor, and the copy of the game kept for a reload while
// offline. Reads and writes the page's model (gamemodel.js); `draw()` redraws the page.

import { connection } from "./connection.js";
import { toast } from "./dom.js";
import { commandKey, enqueue, saveGame, settle } from "./queue.js";

export class Outbox {
  constructor(model, draw) {
    this.model = model;
    this.draw = draw;
    // Commands the server applied, to leave the queue with the next saved copy of the game
    // (`saveSoon`), and the timer that writes it.
    this.applied = [];
    this.saveTimer = null;
  }

  /** Sends every queued command not yet sent, oldest first. */
  flush() {
    if (!connection.live) return;
    for (const [id, entry] of this.model.state.unsent()) {
      entry.sent = connection.send({ type: "command", gameID: this.model.gameID, id, command: entry.command, typedAt: entry.typedAt });
    }
  }

  /** An edit of the grid (a letter, undo, a check, the pause): refused here with the reason
   * while this player cannot write, and the catch-up's marks go with this player's first move. */
  async issue(command) {
    const { model } = this;
    const frozen = model.frozenReason();
    if (frozen) return toast(frozen, "error");
    if (model.caught) {
      model.caught = null;
      model.catchUpLine = null;
    }
    await this.queue(command, model.state.typed(command));
  }

  /** Puts a command in the queue and sends what can go, then draws: the command goes to the
   * server at once and to IndexedDB (where it outlives a reload) alongside, not first — the
   * database can take a frame or two while it writes. `local`: the id it was shown under while
   * the queue named it. */
  async queue(command, local = null) {
    const typedAt = Math.round(connection.now());
    const key = commandKey(typedAt);
    const stored = enqueue(key, this.model.gameID, command, typedAt);
    this.model.state.queued(key, command, typedAt, local);
    this.flush();
    this.draw();
    try {
      await stored;
    } catch {
      toast("This browser could not keep that change for a reload; it was sent to the server.", "error");
    }
  }

  /** Sends a chat message as a command: it waits in the queue while offline, like a letter. */
  async say(text) {
    if (this.model.view.readOnly) return toast("You were removed from this game; you can read it but not write in it.", "error");
    const random = crypto.getRandomValues(new Uint32Array(2));
    const messageID = `${Date.now().toString(36)}-${random[0].toString(36)}${random[1].toString(36)}`;
    await this.queue({ kind: "chat", text, messageID });
  }

  /** Flags the current clue for the others ("look at 17 Across"), or takes this player's flag down. */
  async toggleFlag() {
    const { model } = this;
    if (model.view.readOnly) return;
    const word = model.word();
    if (!word) return;
    const on = !model.myFlag();
    const { row, col, direction } = model.cursor;
    await this.queue({ kind: "flag", row, col, direction, on });
    toast(on ? `Flagged ${word.number} ${word.direction === "across" ? "Across" : "Down"} for the others.` : "Flag taken down.");
  }

  /** Gives or takes back a reaction, as a queued command like a message. */
  async react(messageKey, emoji, on) {
    if (this.model.view.readOnly) return;
    await this.queue({ kind: "react", messageKey, emoji, on });
  }

  /** Check, reveal or clear a square, the word or the puzzle, from the cursor. */
  scoped(kind, scope) {
    const { row, col, direction } = this.model.cursor;
    this.issue({ kind, scope, row, col, direction });
  }

  /** Tells the others where this cursor is, once it has rested for a moment. */
  sendCursor() {
    clearTimeout(this.cursorTimer);
    this.cursorTimer = setTimeout(() => {
      const { row, col, direction } = this.model.cursor;
      connection.send({ type: "cursor", gameID: this.model.gameID, cursor: { row, col, direction } });
    }, 60);
  }

  /** The server answered command `id`: an applied one leaves the queue with the next saved copy
   * of the game, which holds its effect; a refused one has none, and goes now. */
  settled(id, refused) {
    if (refused) settle(id);
    else this.applied.push(id);
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
    if (!this.model.view) return;
    saveGame(this.model.view, this.applied);
    this.applied = [];
  }

  /** The page goes: what is waiting to be saved is saved now. */
  stop() {
    if (this.saveTimer) this.saveNow();
    clearTimeout(this.cursorTimer);
  }
}
