// The solving keys, as every Crossmate client behaves (SolvingKeys in CrossmateCore): key,
// cursor and the letters on the grid in; the new cursor and maybe an edit out. This moves the
// cursor only; every edit goes to the server as a command. The browser tests run the same
// table of cases as the Swift tests (Tests/CrossmateCoreTests/Resources/solving-keys.json).

import { limits } from "./limits.js";

/** The puzzle's shape from the server's layout: squares, words and their order. */
export class Board {
  constructor(layout) {
    this.width = layout.width;
    this.height = layout.height;
    this.squares = layout.squares;
    const words = (list, direction) =>
      list.map((clue) => ({ ...clue, direction, cells: clue.cells.map(([row, col]) => ({ row, col })) }));
    this.across = words(layout.across, "across");
    this.down = words(layout.down, "down");
    this.all = [...this.across, ...this.down];
    // Each square's word in each direction, for lookups while typing.
    this.wordAt = { across: new Map(), down: new Map() };
    for (const clue of this.all) {
      clue.cells.forEach((cell, index) => this.wordAt[clue.direction].set(key(cell), { clue, index }));
    }
  }

  contains({ row, col }) {
    return row >= 0 && col >= 0 && row < this.height && col < this.width;
  }

  isLetter(position) {
    return this.contains(position) && this.squares[position.row * this.width + position.col].kind === "letter";
  }

  clue(position, direction) {
    return this.wordAt[direction].get(key(position))?.clue ?? null;
  }

  indexInWord(position, direction) {
    return this.wordAt[direction].get(key(position))?.index ?? -1;
  }

  nextWord(position, direction) {
    const current = this.clue(position, direction);
    if (!current) return this.all[0] ?? null;
    return this.all[(this.all.indexOf(current) + 1) % this.all.length];
  }

  previousWord(position, direction) {
    const current = this.clue(position, direction);
    if (!current) return this.all[this.all.length - 1] ?? null;
    return this.all[(this.all.indexOf(current) - 1 + this.all.length) % this.all.length];
  }

  firstEmpty(clue, letterAt) {
    return clue.cells.find((cell) => letterAt(cell) === "") ?? null;
  }

  /** Where a cursor starts when a game opens (Puzzle.openingCursor in CrossmateCore): the first
   * empty square of the first clue that has one, across clues then down, in that clue's
   * direction; in a full grid, the first clue's first square. */
  opening(letterAt) {
    for (const [direction, clues] of [["across", this.across], ["down", this.down]]) {
      for (const clue of clues) {
        const square = this.firstEmpty(clue, letterAt);
        if (square) return { ...square, direction };
      }
    }
    const first = this.across[0] ?? this.down[0];
    return first ? { ...first.cells[0], direction: this.across[0] ? "across" : "down" } : { row: 0, col: 0, direction: "across" };
  }
}

export const key = ({ row, col }) => `${row},${col}`;
/** A clue's name in the lists and among the flags: "17-across". */
export const clueID = (number, direction) => `${number}-${direction}`;
const same = (a, b) => a.row === b.row && a.col === b.col;
const perpendicular = (direction) => (direction === "across" ? "down" : "across");

/*
 * What a square holds, as SquareText (CrossmateCore) says: characters (graphemes, as Swift
 * counts them) that are a letter, a decimal digit or a rebus symbol followed only by combining
 * marks; at most `limits.squareLetters` of them and `limits.squareBytes` bytes (the server's
 * limits table). One key writes a letter or digit; a symbol goes in through a rebus entry. The
 * shared table's "characters" holds both to the same answers.
 */
const SQUARE_MAXIMUM_LENGTH = limits.squareLetters;
const SQUARE_MAXIMUM_BYTES = limits.squareBytes;
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const characters = (text) => [...graphemes.segment(text)].map((part) => part.segment);
const utf8Length = (text) => new TextEncoder().encode(text).length;
export const squareAccepts = (character) => /^[\p{Lu}\p{Ll}\p{Lt}\p{Lm}\p{Lo}\p{Nd}&\/\-+'.?!#@*=$%]\p{M}*$/u.test(character);
export const typedDirectly = (character) => /^[\p{Lu}\p{Ll}\p{Lt}\p{Lm}\p{Lo}\p{Nd}]\p{M}*$/u.test(character);
export function rebusAdding(entry, typedText) {
  let result = entry;
  for (const character of characters(typedText.toUpperCase())) {
    if (!squareAccepts(character)) continue;
    if (characters(result).length >= SQUARE_MAXIMUM_LENGTH || utf8Length(result + character) > SQUARE_MAXIMUM_BYTES) break;
    result += character;
  }
  return result;
}

/**
 * The cursor after `pressed`, and the edit it asks for (or null). A cursor is
 * { row, col, direction, pencil, rebus } (rebus is a string while an entry is open, else null);
 * an edit is { kind: "write", row, col, letter, pencil } or { kind: "erase", row, col }.
 * Keys: { letter: "A" }, "left", "right", "up", "down", "space", "tab", "shiftTab", "backspace",
 * "delete", "home", "end", "rebus", "enter", "escape", "pencil", { jump: number, direction },
 * { tap: { row, col } } (a tap or click on a square).
 */
export const DEFAULT_OPTIONS = { skipFilledSquares: true, jumpAtWordEnd: true, spaceClears: false, backspaceAcrossWords: false };

export function press(pressed, cursor, board, letterAt, given = DEFAULT_OPTIONS) {
  const options = { ...DEFAULT_OPTIONS, ...given };
  const next = { ...cursor };
  const at = { row: cursor.row, col: cursor.col };
  if (pressed.tap !== undefined) {
    // There, keeping the direction where a word runs that way; on the cursor's own square, a
    // turn where a word runs the other way. An open rebus entry closes unwritten.
    const square = { row: pressed.tap.row, col: pressed.tap.col };
    if (!board.isLetter(square)) return { cursor, edit: null };
    const tapped = { ...next, ...square, rebus: null };
    const other = perpendicular(cursor.direction);
    if (same(square, at)) {
      if (board.clue(square, other)) tapped.direction = other;
    } else if (!board.clue(square, cursor.direction)) tapped.direction = other;
    return { cursor: tapped, edit: null };
  }
  if (cursor.rebus !== null && cursor.rebus !== undefined) {
    let buffer = cursor.rebus;
    if (pressed.letter !== undefined) {
      next.rebus = rebusAdding(buffer, pressed.letter);
      return { cursor: next, edit: null };
    }
    switch (pressed) {
      case "backspace":
        next.rebus = characters(buffer).slice(0, -1).join("");
        return { cursor: next, edit: null };
      case "escape":
        next.rebus = null;
        return { cursor: next, edit: null };
      case "enter":
        next.rebus = null;
        if (buffer === "") return { cursor: next, edit: null };
        return typed(buffer, next, board, letterAt, options);
      default:
        return { cursor: next, edit: null }; // other keys wait until the entry is closed
    }
  }
  if (pressed.letter !== undefined) {
    const letter = characters(pressed.letter.toUpperCase())[0];
    if (!letter || !typedDirectly(letter)) return { cursor, edit: null };
    return typed(letter, cursor, board, letterAt, options);
  }
  if (pressed.jump !== undefined) {
    const clue = board[pressed.direction].find((c) => c.number === pressed.jump);
    if (!clue) return { cursor, edit: null };
    const square = board.firstEmpty(clue, letterAt) ?? clue.cells[0];
    return { cursor: { ...next, ...square, direction: pressed.direction }, edit: null };
  }
  switch (pressed) {
    case "left":
    case "right":
    case "up":
    case "down": {
      const axis = pressed === "left" || pressed === "right" ? "across" : "down";
      if (axis !== cursor.direction) return { cursor: { ...next, direction: axis }, edit: null };
      const delta = pressed === "left" || pressed === "up" ? -1 : 1;
      return { cursor: { ...next, ...(step(at, axis, delta, board) ?? at) }, edit: null };
    }
    case "space": {
      if (!options.spaceClears) return { cursor: { ...next, direction: perpendicular(cursor.direction) }, edit: null };
      const word = board.clue(at, cursor.direction);
      const index = board.indexInWord(at, cursor.direction);
      if (word && index + 1 < word.cells.length) Object.assign(next, word.cells[index + 1]);
      return { cursor: next, edit: letterAt(at) === "" ? null : { kind: "erase", ...at } };
    }
    case "tab":
    case "shiftTab": {
      const forward = pressed === "tab";
      const unfilled = unfilledWord(cursor, forward, board, letterAt);
      if (unfilled) return { cursor: { ...next, ...unfilled.square, direction: unfilled.clue.direction }, edit: null };
      const clue = forward ? board.nextWord(at, cursor.direction) : board.previousWord(at, cursor.direction);
      if (clue) return { cursor: { ...next, ...clue.cells[0], direction: clue.direction }, edit: null };
      return { cursor: next, edit: null };
    }
    case "backspace": {
      if (letterAt(at) !== "") return { cursor, edit: { kind: "erase", ...at } };
      const word = board.clue(at, cursor.direction);
      const index = board.indexInWord(at, cursor.direction);
      if (word && index > 0) Object.assign(next, word.cells[index - 1]);
      else {
        const previous = options.backspaceAcrossWords ? board.previousWord(at, cursor.direction) : null;
        if (!previous || previous === word) return { cursor, edit: null };
        Object.assign(next, previous.cells[previous.cells.length - 1], { direction: previous.direction });
      }
      return { cursor: next, edit: letterAt(next) === "" ? null : { kind: "erase", row: next.row, col: next.col } };
    }
    case "delete":
      return { cursor, edit: letterAt(at) === "" ? null : { kind: "erase", ...at } };
    case "home":
    case "end": {
      const word = board.clue(at, cursor.direction);
      if (word) Object.assign(next, pressed === "home" ? word.cells[0] : word.cells[word.cells.length - 1]);
      return { cursor: next, edit: null };
    }
    case "rebus":
      return { cursor: { ...next, rebus: "" }, edit: null };
    case "pencil":
      return { cursor: { ...next, pencil: !cursor.pencil }, edit: null };
    default:
      return { cursor, edit: null };
  }
}

/** Writes `letter` at the cursor and moves on, as SolvingKeys.typed does. */
function typed(letter, cursor, board, letterAt, options) {
  const at = { row: cursor.row, col: cursor.col };
  if (!board.isLetter(at)) return { cursor, edit: null };
  const edit = { kind: "write", ...at, letter, pencil: !!cursor.pencil };
  const after = (square) => (same(square, at) ? letter : letterAt(square));
  const next = { ...cursor };
  const word = board.clue(at, cursor.direction);
  const index = board.indexInWord(at, cursor.direction);
  if (!word || index < 0) return { cursor: next, edit };
  const later = word.cells.slice(index + 1);
  const inWord = options.skipFilledSquares
    ? later.find((s) => after(s) === "") ?? word.cells.slice(0, index).find((s) => after(s) === "")
    : later[0];
  // Correcting a word that was already full goes on along it, not into other words.
  const correcting = !inWord && later.length > 0 && word.cells.every((s) => letterAt(s) !== "");
  const unfilled = !inWord && !correcting && options.jumpAtWordEnd && options.skipFilledSquares ? unfilledWord(cursor, true, board, after) : null;
  const following = !inWord && !correcting && options.jumpAtWordEnd && !options.skipFilledSquares ? board.nextWord(at, cursor.direction) : null;
  if (inWord) Object.assign(next, inWord);
  else if (correcting) Object.assign(next, later[0]);
  else if (unfilled) Object.assign(next, unfilled.square, { direction: unfilled.clue.direction });
  else if (following) Object.assign(next, following.cells[0], { direction: following.direction });
  else if (later.length) Object.assign(next, later[0]);
  return { cursor: next, edit };
}

/** The next (or previous) word in clue order, wrapping, with an empty square. */
function unfilledWord(cursor, forward, board, letterAt) {
  const ordered = board.all;
  if (!ordered.length) return null;
  const current = board.clue(cursor, cursor.direction);
  const start = current ? ordered.indexOf(current) : forward ? -1 : 0;
  for (let offset = 1; offset <= ordered.length; offset++) {
    const index = (((start + (forward ? offset : -offset)) % ordered.length) + ordered.length) % ordered.length;
    const square = board.firstEmpty(ordered[index], letterAt);
    if (square) return { clue: ordered[index], square };
  }
  return null;
}

/** The next letter square along a row or column, over blocks; null at the edge. */
function step(position, direction, delta, board) {
  let square = { ...position };
  for (;;) {
    square = direction === "across" ? { row: square.row, col: square.col + delta } : { row: square.row + delta, col: square.col };
    if (!board.contains(square)) return null;
    if (board.isLetter(square)) return square;
  }
}
