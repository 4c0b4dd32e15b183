// What the solving page shows, in one object the drawing reads (gameview.js and the modules it
// loads) and the page (game.js) changes: the game as the server sent it with the commands not
// yet answered (`state`, gamestate.js), the grid's shape (`board`), this player's cursor, the
// other players' cursors, the player followed, what happened while this player was away, the
// pause, the clock and the replay. No elements and no socket: the view draws it, the page
// writes it.

import { EMPTY_SQUARE, GameState } from "./gamestate.js";
import { key } from "./keys.js";

export class GameModel {
  constructor(gameID) {
    this.gameID = gameID;
    this.state = new GameState();
    this.board = null; // the clues and squares (keys.js Board), from the first view
    this.cursor = null; // { row, col, direction, pencil, rebus }
    this.peers = new Map(); // deviceID → { authorID, row, col, direction, at }
    this.following = null; // the authorID this cursor follows
    this.caught = null; // squares others filled since this account last looked, until it moves
    this.catchUpLine = null; // and the line that says so
    this.paused = false;
    this.pausedAt = null; // the seconds shown when paused
    this.timerAt = null; // when the server's clock was last heard
    this.unseen = 0; // chat messages from others not yet in sight
    this.hereCount = null; // devices here at the last count
    // The replay as ending.js gathers and plays it: the pages asked for (`loading`), the whole
    // replay (`data`), the grid at the step shown (`frame`, null at the end) and its timers.
    this.replay = { loading: null, data: null, frame: null, poll: null, playing: null };
  }

  /** The game as the server last sent it (the state's). */
  get view() {
    return this.state.view;
  }

  /** The letter a square shows: the replay's frame while one is shown, else the newest
   * unanswered edit, else the server's. */
  shown(position) {
    if (this.replay.frame) return this.replay.frame.get(key(position)) ?? EMPTY_SQUARE;
    return this.state.shown(position);
  }

  letterAt(position) {
    return this.shown(position).letter ?? "";
  }

  /** The clue the cursor is in, if a word runs its way there. */
  word() {
    return this.board.clue(this.cursor, this.cursor.direction);
  }

  /** This player's flag on the current clue, if one shows. */
  myFlag() {
    const word = this.word();
    return word && this.state.flags.find((flag) => flag.authorID === this.view.me && flag.number === word.number && flag.direction === word.direction);
  }

  /** A player's colour for letters and marks: in the dark theme its light twin (the server
   * sends both), so letters keep 4.5:1 on the squares in either theme. */
  colorOf(authorID) {
    const player = this.view.players.find((each) => each.authorID === authorID);
    if (!player) return "";
    return player.darkColor ? `light-dark(${player.color}, ${player.darkColor})` : player.color;
  }

  nameOf(authorID) {
    if (authorID === this.view.me) return "you";
    return this.view.players.find((player) => player.authorID === authorID)?.displayName ?? "another player";
  }

  /** Devices here now, across the players. */
  static here(players) {
    return (players ?? []).reduce((sum, player) => sum + (player.here ?? 0), 0);
  }

  /** The clock as it shows now: the server's seconds and those counted since, up to what the
   * server said it counts for without another move. */
  shownSeconds() {
    const { seconds, countsFor } = this.view.timer ?? { seconds: 0, countsFor: 0 };
    return seconds + Math.min(this.secondsSinceTimer(), countsFor);
  }

  secondsSinceTimer() {
    return Math.floor((Date.now() - (this.timerAt ?? Date.now())) / 1000);
  }

  /** Whether the clock stopped because nobody moved for its minute (and says so). */
  idle() {
    const { seconds, countsFor } = this.view.timer ?? { seconds: 0, countsFor: 0 };
    return !this.paused && !this.view.completion && seconds > 0 && this.secondsSinceTimer() >= countsFor;
  }

  /** Why this player cannot write in the grid now, or null. */
  frozenReason() {
    if (this.view.readOnly) return "You were removed from this game; it is read-only for you.";
    if (this.view.completion) return "The game is finished; the grid is final.";
    return null;
  }

  /** The cursor goes where a followed player's last went. */
  followTo(peer) {
    this.cursor = { ...this.cursor, row: peer.row, col: peer.col, direction: peer.direction };
  }

  /** The latest cursor of a player, of any of their devices here. */
  latestPeer(authorID) {
    return [...this.peers.values()].filter((peer) => peer.authorID === authorID).sort((a, b) => b.at - a.at)[0];
  }
}
