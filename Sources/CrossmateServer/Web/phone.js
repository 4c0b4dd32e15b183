// The solving page on a touch screen: one fixed screen, as a crossword app is. The toolbar, the
// status line, the grid, the clue bar and the keyboard are always in sight together and the
// page never scrolls; the clue lists, the chat, the players and the puzzle's notes open as
// sheets over the grid and close back to it. The grid's squares are whole CSS pixels, so every
// line between them is drawn at any device pixel ratio.

import { el, setText } from "./dom.js";
import { clueID } from "./keys.js";

/** The clue bar's least height; a long clue may take what the grid leaves below it. */
const clueBarHeight = 56;

/** The phone's screen for a GameView (gameview.js), built from the parts it built: `element`
 * is the page's section; the sheets, the dock and the roster's faces are its own. */
export class PhoneLayout {
  constructor(view, { tools, lists, infoParts }) {
    this.view = view;
    const { layout } = view.model.view;
    const title = layout.title || "Untitled";
    this.sheets = new Map();
    this.openName = null; // the sheet over the grid, if one is open
    this.clueRoom = null;
    // A clue tapped in the list is where the cursor goes: the sheet closes back to the grid.
    lists.addEventListener("click", (event) => event.target.closest(".clues li") && this.close());
    this.rosterFaces = el("span", { class: "faces", "aria-hidden": "true" });
    this.playersButton = el(
      "button",
      { type: "button", class: "players-button", "data-players-button": true, "aria-label": "players", onclick: () => this.open("players") },
      this.rosterFaces,
    );
    // The Players sheet invites too (on a phone that is where a player looks for it).
    this.inviteButton = el("button", { type: "button", class: "primary invite", "data-invite-button": true, onclick: () => {
      this.close();
      view.share();
    } }, "Invite players");
    const { grid } = view;
    this.play = el("div", { class: "play" }, el("div", { class: "gridwrap" }, grid.element, grid.rebusEntry, grid.input, view.pausedCover));
    this.dock = this.buildDock();
    this.element = el(
      "section",
      { class: "game touch" },
      el(
        "div",
        { class: "toolbar" },
        el("a", { href: "/", "data-route": true, class: "back", title: "Your games", "aria-label": "your games" }, "←"),
        el("h1", {}, el("button", { type: "button", class: "title-button", "data-title": true, title: "About this puzzle", onclick: () => this.open("info") }, title)),
        tools,
      ),
      el("div", { class: "statusline" }, view.timerBox, view.statusBox, view.statusAnnouncer, grid.clueAnnouncer, this.playersButton),
      view.notice,
      view.catchUpBox,
      view.banner,
      el(
        "div",
        { class: "board" },
        this.play,
        this.sheet("clues", "Clues", lists),
        this.sheet("chat", "Chat", view.chatSlot),
        this.sheet("players", "Players", view.roster, this.inviteButton),
        this.sheet("info", "This puzzle", el("p", { class: "full-title", "data-full-title": true }, title), ...infoParts),
      ),
      this.dock,
    );
    document.body.classList.add("touch-game");
    view.stops.push(() => document.body.classList.remove("touch-game", "sheet-open"));
    const observer = new ResizeObserver(() => this.fitGrid());
    observer.observe(this.play);
    view.stops.push(() => observer.disconnect());
  }

  sheet(name, heading, ...content) {
    const node = el(
      "section",
      { class: "sheet", "data-sheet": name, hidden: true, role: "dialog", "aria-label": heading },
      el(
        "header",
        { class: "sheet-head" },
        el("h2", {}, heading),
        el("button", { type: "button", class: "sheet-close", "data-sheet-close": true, "aria-label": `close ${heading.toLowerCase()}`, onclick: () => this.close() }, "✕"),
      ),
      el("div", { class: "sheet-body" }, ...content),
    );
    this.sheets.set(name, node);
    return node;
  }

  /** The dock: the clue bar (‹ and › step clues, a tap on the clue turns the direction) above
   * an on-screen keyboard. Keys never take the focus from the grid. */
  buildDock() {
    const { view } = this;
    const { handlers } = view;
    const key = (name, label, extra = {}) =>
      el("button", { type: "button", class: "key", "data-key": name, "aria-label": extra.label ?? name, ...extra.attributes }, label);
    const rows = ["QWERTYUIOP", "ASDFGHJKL", "ZXCVBNM"].map((letters) => [...letters].map((letter) => key(letter, letter, { label: letter })));
    this.rebusKey = key("rebus", "Rebus", { label: "rebus" });
    rows[2].unshift(this.rebusKey);
    rows[2].push(key("backspace", "⌫", { label: "backspace" }));
    const keyboard = el("div", { class: "keyboard", "data-keyboard": true, role: "group", "aria-label": "keyboard" }, ...rows.map((row) => el("div", { class: "keyrow" }, ...row)));
    keyboard.addEventListener("pointerdown", (event) => event.preventDefault());
    keyboard.addEventListener("mousedown", (event) => event.preventDefault());
    keyboard.addEventListener("click", (event) => {
      const name = event.target.closest("[data-key]")?.dataset.key;
      // A sheet over the grid: no key types where the player cannot see.
      if (!name || this.openName) return;
      if (name === "rebus") handlers.press(view.model.cursor.rebus === null ? "rebus" : "enter");
      else if (name === "backspace") handlers.press("backspace");
      else handlers.press({ letter: name });
      view.focusGrid();
    });
    const step = (pressed, symbol, label) =>
      el("button", {
        type: "button", class: "step", "aria-label": label, "data-clue-step": pressed,
        // The focus goes to the square the new clue starts at, which says the clue.
        onclick: () => {
          handlers.press(pressed);
          view.focusGrid();
        },
      }, symbol);
    const bar = view.clueBar;
    bar.setAttribute("role", "button");
    bar.setAttribute("tabindex", "0");
    bar.addEventListener("click", () => handlers.tap({ row: view.model.cursor.row, col: view.model.cursor.col }));
    return el(
      "div",
      { class: "dock", "data-dock": true },
      el("div", { class: "cluerow" }, step("shiftTab", "‹", "previous clue"), bar, step("tab", "›", "next clue")),
      keyboard,
    );
  }

  /** The keyboard goes once the grid is final; the rebus key writes an open entry. */
  render(frozen) {
    const { rebus } = this.view.model.cursor;
    this.dock.hidden = frozen;
    setText(this.rebusKey, rebus === null ? "Rebus" : "Enter");
    this.rebusKey.classList.toggle("on", rebus !== null);
  }

  /** The squares' size: the largest whole number of CSS pixels that fits the grid in its place,
   * which is then put on a whole pixel too (a half-pixel offset blurs every line). The room the
   * grid leaves below it is the clue bar's to grow into (a long clue shows whole): the grid is
   * fitted to its place as if the bar were at its least, so a clue never moves the grid. */
  fitGrid() {
    const { width: cols, height: rows } = this.view.model.view.layout;
    // Under a sheet the keyboard is away and the grid out of sight: fitted when it closes.
    if (this.openName) return;
    const box = this.play.getBoundingClientRect();
    if (!box.width || !box.height) return;
    const bar = this.view.clueBar;
    const grown = Math.max(0, bar.offsetHeight - clueBarHeight);
    const height = box.height + grown;
    const border = 2;
    const gap = 1;
    const size = Math.max(8, Math.floor(Math.min((box.width - 2 * border - (cols - 1) * gap) / cols, (height - 2 * border - (rows - 1) * gap) / rows)));
    const width = cols * size + (cols - 1) * gap + 2 * border;
    const room = Math.max(0, Math.floor(height - (rows * size + (rows - 1) * gap + 2 * border)));
    const grid = this.view.grid.element;
    grid.style.setProperty("--sq", `${size}px`);
    if (this.clueRoom !== room) {
      this.clueRoom = room;
      bar.style.maxHeight = `${clueBarHeight + Math.min(room, 120)}px`;
      this.fitClue();
    }
    const wrap = grid.parentElement;
    wrap.style.marginLeft = `${Math.max(0, Math.floor((box.width - width) / 2))}px`;
    wrap.style.marginTop = `${Math.ceil(box.top) - box.top}px`;
  }

  /** The clue bar's type, shrunk a step at a time until the whole clue fits the bar. */
  fitClue() {
    const bar = this.view.clueBar;
    for (const size of [1, 0.94, 0.88, 0.82, 0.76, 0.7]) {
      bar.style.fontSize = `${size}rem`;
      if (bar.scrollHeight <= bar.clientHeight + 1) return;
    }
  }

  /** Opens one sheet over the grid (closing any other). */
  open(name) {
    this.view.toggleMore(false);
    for (const [other, node] of this.sheets) node.hidden = other !== name;
    this.openName = name;
    // The sheet covers the grid, so the on-screen keyboard steps aside: a key would type a
    // letter the player cannot see.
    document.body.classList.add("sheet-open");
    const node = this.sheets.get(name);
    node.querySelector(".sheet-body").scrollTop = 0;
    if (name === "clues") this.showCurrentClue(node.querySelector(".sheet-body"));
    if (name !== "chat") node.querySelector("[data-sheet-close]").focus({ preventScroll: true });
  }

  /** Scrolls the clue sheet (only the sheet, never the page) to the clue the cursor is in. */
  showCurrentClue(body) {
    const word = this.view.model.word();
    const item = word && this.view.clueItems.get(clueID(word.number, word.direction))?.item;
    if (!item) return;
    body.scrollTop += item.getBoundingClientRect().top - body.getBoundingClientRect().top - body.clientHeight / 3;
  }

  /** Closes the open sheet: back to the grid, which has the keys again. */
  close() {
    if (!this.openName) return;
    this.sheets.get(this.openName).hidden = true;
    this.openName = null;
    document.body.classList.remove("sheet-open");
    this.fitGrid();
    this.view.focusGrid();
  }
}
