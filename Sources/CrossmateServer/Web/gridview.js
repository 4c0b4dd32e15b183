// The grid of the solving page: its squares, the input the keys go to, the open rebus entry and
// what a screen reader hears of them. Built once from the layout and drawn from the page's
// model (gamemodel.js), writing only the squares whose inputs changed. What a square or key is
// pressed for goes to the page's handlers: `tap(position)`, `keydown(event)`, `press(key)`.

import { el, setAttribute, setStyle, setText } from "./dom.js";
import { clueID, key } from "./keys.js";

export class GridView {
  constructor(model, handlers, { touch }) {
    this.model = model;
    this.touch = touch;
    const { layout } = model.view;
    // The clue is heard with the square the cursor enters it at (its name says so); a turn on
    // the same square says the new clue here, once.
    this.clueAnnouncer = el("span", { class: "sr-only", role: "status", "data-clue-announcer": true });
    this.element = el("div", { class: "grid", role: "grid", "aria-label": "crossword grid", style: `--cols:${layout.width};--rows:${layout.height}` });
    this.cells = new Map();
    for (let row = 0; row < layout.height; row++) {
      const line = el("div", { role: "row", class: "row" });
      for (let col = 0; col < layout.width; col++) {
        const square = layout.squares[row * layout.width + col];
        if (square.kind !== "letter") {
          line.append(el("div", { role: "gridcell", class: `cell ${square.kind}`, "aria-label": square.kind === "block" ? "block" : "no square" }));
          continue;
        }
        const letter = el("span", { class: "letter", dataset: { row, col } });
        // On a touch screen each square takes the focus in turn (a roving tabindex): the
        // square a phone's screen reader is on is the cursor's.
        const cell = el(
          "div",
          {
            role: "gridcell", id: `cell-${row}-${col}`, class: `cell${square.circled ? " circled" : ""}${square.shaded ? " shaded" : ""}`, dataset: { r: row, c: col },
            tabindex: touch ? "-1" : null,
          },
          square.number ? el("span", { class: "num", "aria-hidden": "true" }, square.number) : null,
          letter,
        );
        if (square.bars) for (const [bit, side] of [[1, "top"], [2, "left"], [4, "bottom"], [8, "right"]]) if (square.bars & bit) cell.classList.add(`bar-${side}`);
        cell.addEventListener("pointerdown", (event) => {
          event.preventDefault();
          handlers.tap({ row, col });
        });
        this.cells.set(key({ row, col }), { cell, letter, row, col });
        line.append(cell);
      }
      this.element.append(line);
    }
    // A rebus being typed, at a size that reads, over its square (which shows it too small).
    this.rebusEntry = el("div", { class: "rebus-entry", "aria-hidden": "true", hidden: true });
    this.input = this.keysInput(handlers);
    this.element.addEventListener("pointerup", () => this.focus());
    // A hardware keyboard on a touch screen types on the focused square.
    if (touch) this.element.addEventListener("keydown", (event) => handlers.keydown(event));
    // A screen reader's activation of a square (a click with no pointer before it) moves there.
    this.element.addEventListener("click", (event) => {
      const cell = event.target.closest(".cell[data-r]");
      if (cell && event.detail === 0) handlers.tap({ row: Number(cell.dataset.r), col: Number(cell.dataset.c) });
    });
  }

  /** The keyboard goes to one input laid over the grid, so a phone shows its keyboard. On a
   * touch screen the on-screen keyboard below types, so the system's stays down (inputmode
   * none): no composition events, and the grid keeps its size. */
  keysInput(handlers) {
    const input = el("input", {
      class: "keys", "aria-label": "type answers here; Escape leaves the grid", autocapitalize: "characters",
      autocomplete: "off", autocorrect: "off", spellcheck: "false", enterkeyhint: "next", "data-keys": true,
      inputmode: this.touch ? "none" : null,
    });
    input.addEventListener("keydown", (event) => handlers.keydown(event));
    // Phones' keyboards send text, not keys; so do input methods (IME, accents), whose text
    // is typed once, when composed: the partial compositions before it ("f", "fe", "fer") were
    // each typed too, and "fer" filled six squares.
    const typeText = () => {
      const text = input.value;
      input.value = "";
      for (const character of text) handlers.press(character === " " ? "space" : { letter: character });
    };
    let composing = false;
    input.addEventListener("compositionstart", () => (composing = true));
    input.addEventListener("compositionend", () => {
      composing = false;
      typeText();
    });
    input.addEventListener("input", (event) => {
      if (composing || event.isComposing) return;
      typeText();
    });
    return input;
  }

  /** Gives the keys to the grid: on a touch screen its current square (roving focus, which
   * phones' screen readers follow), elsewhere the input over it, whose active descendant is the
   * current square. */
  focus() {
    if (!this.touch) return this.input.focus({ preventScroll: true });
    this.cells.get(key(this.model.cursor))?.cell.focus({ preventScroll: true });
  }

  render() {
    const { model } = this;
    const { cursor } = model;
    setAttribute(this.element, "data-cursor", `${cursor.row},${cursor.col},${cursor.direction}`);
    // A screen reader hears the current square through the input that has the focus (on a
    // touch screen, the square itself has it).
    if (!this.touch) setAttribute(this.input, "aria-activedescendant", `cell-${cursor.row}-${cursor.col}`);
    const word = model.word();
    // Where the cursor entered its word: that square's name says the clue (as a word's first
    // square's always does), heard once as the cursor arrives. A turn on the same square has
    // no new square to hear, so the new clue is said by itself.
    const wordID = word ? clueID(word.number, word.direction) : "";
    if (this.entered?.wordID !== wordID) {
      const turned = this.entered && this.entered.at === key(cursor);
      this.entered = { wordID, at: key(cursor) };
      setText(this.clueAnnouncer, turned && word ? `${word.number} ${word.direction === "across" ? "Across" : "Down"}, ${word.text}` : "");
    }
    const inWord = new Set((word?.cells ?? []).map(key));
    const peerAt = new Map();
    const peerWord = new Map();
    const now = Date.now();
    for (const peer of model.peers.values()) {
      if (now - peer.at >= 120_000) continue;
      peerAt.set(key(peer), peer);
      // Their current word, underlined in their colour.
      for (const cell of model.board.clue(peer, peer.direction)?.cells ?? []) peerWord.set(key(cell), peer);
    }
    // Flagged words: a corner mark in the flagger's colour (the first flag on a square shows).
    const flagged = new Map();
    for (const flag of model.state.flags) for (const [row, col] of flag.cells) if (!flagged.has(`${row},${col}`)) flagged.set(`${row},${col}`, flag);
    // Only what changed is written: one letter typed touches a square or two, so a square
    // whose inputs are as they were last time is passed over without a call into the DOM.
    for (const [where, entry] of this.cells) {
      const { cell, letter } = entry;
      const { row, col } = entry;
      const flag = flagged.get(where);
      const square = model.shown(entry);
      const here = row === cursor.row && col === cursor.col;
      const text = cursor.rebus !== null && here ? cursor.rebus : square.letter;
      const peer = peerAt.get(where);
      const along = peerWord.get(where);
      const color = square.pendingEdit ? "" : model.colorOf(square.authorID);
      const flagColor = flag ? model.colorOf(flag.authorID) : "transparent";
      const peerColor = peer ? model.colorOf(peer.authorID) : "transparent";
      const alongColor = along ? model.colorOf(along.authorID) : "transparent";
      // What a screen reader hears of the square, described again only when it would change.
      const withClue = here && this.entered.at === where;
      const heard = [text, square.pencil, square.verdict, square.pendingEdit, cursor.direction, withClue,
        text && square.authorID ? model.nameOf(square.authorID) : "", flag ? model.nameOf(flag.authorID) : ""].join("|");
      const caught = !!model.caught?.has(where);
      const drawn = [heard, here, inWord.has(where), caught, color, flagColor, peerColor, alongColor].join("|");
      if (entry.drawn === drawn) continue;
      entry.drawn = drawn;
      cell.classList.toggle("flagged", !!flag);
      setStyle(cell, "--flag", flagColor);
      setText(letter, text);
      setStyle(letter, "color", color);
      cell.classList.toggle("rebus", [...text].length > 1);
      cell.classList.toggle("pencil", !!square.pencil);
      cell.classList.toggle("pending", !!square.pendingEdit);
      cell.classList.toggle("wrong", square.verdict === "checkedWrong");
      cell.classList.toggle("right", square.verdict === "checkedRight");
      cell.classList.toggle("revealed", square.verdict === "revealed");
      cell.classList.toggle("current", here);
      cell.classList.toggle("word", inWord.has(where));
      cell.classList.toggle("caught", caught);
      cell.classList.toggle("peer", !!peer);
      setStyle(cell, "--peer", peerColor);
      cell.classList.toggle("peerword", !!along);
      setStyle(cell, "--peerword", alongColor);
      if (entry.heard !== heard) {
        entry.heard = heard;
        setAttribute(cell, "aria-label", this.describe({ row, col }, square, text, withClue));
      }
      setAttribute(cell, "aria-selected", String(here));
      if (this.touch) setAttribute(cell, "tabindex", here ? "0" : "-1");
    }
    this.renderRebusEntry();
    // The focus follows the cursor from square to square while it is in the grid.
    if (this.touch && document.activeElement?.closest?.(".grid") === this.element) this.focus();
  }

  /** The open rebus entry over the current square, grown to its text and kept inside the grid. */
  renderRebusEntry() {
    const { cursor } = this.model;
    const open = cursor.rebus !== null;
    if (this.rebusEntry.hidden === open) this.rebusEntry.hidden = !open;
    if (!open) return;
    const cell = this.cells.get(key(cursor))?.cell;
    if (!cell) return;
    setText(this.rebusEntry, cursor.rebus);
    setStyle(this.rebusEntry, "min-width", `${cell.offsetWidth + 8}px`);
    setStyle(this.rebusEntry, "height", `${Math.max(cell.offsetHeight + 8, 32)}px`);
    const width = this.rebusEntry.offsetWidth;
    const left = Math.max(0, Math.min(cell.offsetLeft - 4, this.element.offsetLeft + this.element.offsetWidth - width));
    setStyle(this.rebusEntry, "left", `${left}px`);
    setStyle(this.rebusEntry, "top", `${Math.max(0, cell.offsetTop - 4)}px`);
  }

  /** "17 Across, square 3 of 5, A, pencil" (the clue on a word's first square, and on the
   * square the cursor entered the word at). */
  describe(position, square, text, withClue = false) {
    const { model } = this;
    const { board, cursor } = model;
    const direction = board.clue(position, cursor.direction) ? cursor.direction : cursor.direction === "across" ? "down" : "across";
    const clue = board.clue(position, direction);
    const parts = [];
    if (clue) {
      const index = board.indexInWord(position, direction);
      parts.push(`${clue.number} ${direction === "across" ? "Across" : "Down"}, square ${index + 1} of ${clue.cells.length}`);
      if (index === 0 || withClue) parts.push(clue.text);
    }
    parts.push(text ? text : "blank");
    if (square.pencil) parts.push("pencil");
    if (square.verdict === "checkedWrong") parts.push("marked wrong");
    if (square.verdict === "checkedRight") parts.push("checked right");
    if (square.verdict === "revealed") parts.push("revealed");
    if (text && square.authorID && !square.pendingEdit) parts.push(`by ${model.nameOf(square.authorID)}`);
    const flag = model.state.flags.find((f) => f.cells.some(([row, col]) => row === position.row && col === position.col));
    if (flag) parts.push(`flagged by ${model.nameOf(flag.authorID)}`);
    return parts.join(", ");
  }
}
