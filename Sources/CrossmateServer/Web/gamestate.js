// One open game as this browser holds it: the server's last view of the game and its squares,
// the commands typed and not yet answered (sent or waiting to be), and the letters they show
// meanwhile. Pure: what arrives goes in, what to draw and what to send come out; the page owns
// the socket, the screen and the saved copy.

import { key } from "./keys.js";

/** Refusals a command is sent again after; any other drops it. */
export const RETRY = new Set(["rateLimited", "serverError", "notOpen"]);
/** A command the server failed on this many times is dropped, and the player told. */
export const SERVER_ERROR_TRIES = 5;
/** A square no one has written in. */
export const EMPTY_SQUARE = Object.freeze({ letter: "", pencil: false, verdict: "none", authorID: "" });
const STATE_FIELDS = ["players", "readOnly", "completion", "scoreboard", "finish", "headline", "canUndo", "canRedo", "timer"];

export class GameState {
  constructor() {
    this.view = null; // the game as the server last sent it (stale until this socket opened it)
    this.squares = new Map(); // key → square, confirmed by the server
    this.pending = new Map(); // queue id → { command, typedAt, sent, failures }
    this.optimistic = []; // { id, row, col, letter, pencil } while unanswered, in order
    this.nextLocal = -1; // ids for commands shown before the queue has named them
    this.messages = []; // the conversation, in the server's order
    this.reactions = new Map(); // message key → [{ emoji, authors }], as the server tallies them
    this.flags = []; // clues flagged for the others, as they show: { number, direction, authorID, cells }
  }

  /** The game as the server sent it on opening (`fresh`), or as this browser last saved it. */
  open(game, fresh) {
    this.view = { ...game, stale: !fresh };
    this.squares = new Map(game.squares.map((square) => [key(square), square]));
    this.messages = [...(game.messages ?? [])];
    this.reactions = new Map((game.reactions ?? []).map((entry) => [entry.key, entry.tallies]));
    this.flags = game.flags ?? [];
  }

  /** An update or a command's answer: the squares it changed and the game as it now is. */
  absorb(change) {
    for (const square of change.squares ?? []) this.squares.set(key(square), square);
    for (const field of STATE_FIELDS) if (field in change) this.view[field] = change[field];
    if ("completion" in change && !change.completion) this.view.completion = null;
    this.view.squares = [...this.squares.values()];
    const heard = (change.messages ?? []).filter((message) => this.hear(message));
    for (const entry of change.reactions ?? []) {
      if (entry.tallies.length) this.reactions.set(entry.key, entry.tallies);
      else this.reactions.delete(entry.key);
    }
    this.view.messages = this.messages;
    this.view.reactions = [...this.reactions].map(([key, tallies]) => ({ key, tallies }));
    if (change.flags) this.flags = change.flags;
    this.view.flags = this.flags;
    return heard;
  }

  /** A chat message from the server, placed where the server says it stands (once). */
  hear(message) {
    if (this.messages.some((held) => held.key === message.key)) return false;
    this.messages.splice(Math.max(0, Math.min(message.index, this.messages.length)), 0, message);
    return true;
  }

  /** Chat messages typed here and not yet answered, oldest first: { id, text, typedAt }. */
  waitingMessages() {
    return [...this.pending.entries()]
      .filter(([, entry]) => entry.command.kind === "chat")
      .sort((a, b) => a[1].typedAt - b[1].typedAt)
      .map(([id, entry]) => ({ id, text: entry.command.text, typedAt: entry.typedAt }));
  }

  /** A command typed now: shown at once under a local id, until `queued` names it. */
  typed(command) {
    const local = this.nextLocal--;
    this.show(local, command);
    return local;
  }

  /** The command shown as `local` is in the queue as `id` (or was there from before: no local). */
  queued(id, command, typedAt, local = null) {
    if (local === null) this.show(id, command);
    else for (const entry of this.optimistic) if (entry.id === local) entry.id = id;
    this.pending.set(id, { command, typedAt, sent: false });
  }

  show(id, command) {
    if (command.kind === "setLetter") {
      this.optimistic.push({ id, row: command.row, col: command.col, letter: command.letter.toUpperCase(), pencil: !!command.pencil });
    } else if (command.kind === "delete") {
      this.optimistic.push({ id, row: command.row, col: command.col, letter: "", pencil: false });
    }
  }

  /** The commands to send now, oldest first: none while the game is not open on this socket. */
  unsent() {
    if (!this.view || this.view.stale) return [];
    return [...this.pending.entries()].filter(([id, entry]) => !entry.sent && id >= 0).sort((a, b) => a[0] - b[0]);
  }

  /** The socket dropped: every command waiting for an answer goes again on the next. */
  disconnected() {
    for (const entry of this.pending.values()) entry.sent = false;
  }

  /**
   * The server's answer to command `id` (`applied` or `refused`): { retryAfter } to send it
   * again later, else { settled: true, refusal } with the refusal (if any) to tell the player.
   * An answer to nothing pending is { ignored: true }.
   */
  answered(type, answer) {
    const entry = this.pending.get(answer.id);
    if (!entry) return { ignored: true };
    let refusal = type === "refused" ? answer : null;
    if (refusal && RETRY.has(refusal.code)) {
      entry.sent = false;
      if (refusal.code === "serverError") entry.failures = (entry.failures ?? 0) + 1;
      if (!(entry.failures >= SERVER_ERROR_TRIES)) {
        return { retryAfter: refusal.code === "rateLimited" ? 2000 : 1000 * 2 ** (entry.failures ?? 0) };
      }
      refusal = { ...refusal, reason: `a change could not be saved after ${SERVER_ERROR_TRIES} tries and was dropped (${refusal.reason})` };
    }
    this.pending.delete(answer.id);
    this.optimistic = this.optimistic.filter((shown) => shown.id !== answer.id);
    if (refusal) {
      if (refusal.code === "removed") this.view.readOnly = true;
    } else {
      this.absorb(answer);
    }
    return { settled: true, refusal };
  }

  /** A square as it shows: the newest unanswered edit of it, else the server's. */
  shown(position) {
    for (let i = this.optimistic.length - 1; i >= 0; i--) {
      const entry = this.optimistic[i];
      if (entry.row === position.row && entry.col === position.col) return { ...this.squares.get(key(position)), ...entry, pendingEdit: true };
    }
    return this.squares.get(key(position)) ?? EMPTY_SQUARE;
  }
}
