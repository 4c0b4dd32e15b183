// Drawing the solving page: its elements built once (build, buildDock) and brought up to date
// from the page's state (render and its parts), writing only what changed. A base of GamePage
// (game.js), which holds what is drawn — the server's view and the commands not yet answered
// (`state`), the cursor, the other players' cursors, the replay — and handles what the
// elements built here are pressed for. The chat (chat.js) comes once the grid is drawn, the
// finish (ending.js) with the first finished game; the clue lists and the players (sides.js)
// with the chat.

import { connection } from "./connection.js";
import { clock, el, setAttribute, setStyle, setText, stylesheet } from "./dom.js";
import { clueID, key } from "./keys.js";
import { buildPhoneGame, fitClue, fitGrid, openSheet } from "./phone.js";

export class GameView {
  /** Unseen messages: on the Chat button and in the tab's title. */
  renderUnseen() {
    const count = this.unseen ?? 0;
    this.chatBadge.textContent = count ? String(count) : "";
    this.chatBadge.hidden = !count;
    this.chatButton.setAttribute("aria-label", count ? `chat, ${count} new ${count === 1 ? "message" : "messages"}` : "chat");
    document.title = `${count ? `(${count}) ` : ""}${this.view.layout.title || "Crossmate"} · Crossmate`;
  }

  build() {
    const v = this.view;
    document.title = `${v.layout.title || "Crossmate"} · Crossmate`;
    this.statusBox = el("span", { class: "status", "data-sync": true, "data-sync-status": true });
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
              this.focusGrid();
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
    // The chat comes once the grid is drawn (`loadChat`): a phone opening a game fetches what
    // it needs to solve first. Until then its place in the page is kept.
    this.chat = null;
    this.chatSlot = el("div", { "data-chat-slot": true });
    this.chatBadge = el("span", { class: "badge", "data-chat-unseen": true, hidden: true });
    this.chatButton = el("button", { type: "button", class: "chat-button", "data-chat-button": true, "aria-label": "chat", title: "Chat", onclick: () => this.openChat() }, ...labelled("✉", "Chat"), this.chatBadge);
    // The clue is heard with the square the cursor enters it at (its name says so), so the bar
    // is not read out as well; a turn on the same square says the new clue here, once.
    this.clueBar = el("div", { class: "cluebar", "data-clue-bar": true });
    this.clueAnnouncer = el("span", { class: "sr-only", role: "status", "data-clue-announcer": true });
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
        // On a touch screen each square takes the focus in turn (a roving tabindex): the
        // square a phone's screen reader is on is the cursor's.
        const cell = el(
          "div",
          {
            role: "gridcell", id: `cell-${row}-${col}`, class: `cell${square.circled ? " circled" : ""}${square.shaded ? " shaded" : ""}`, dataset: { r: row, c: col },
            tabindex: this.touch ? "-1" : null,
          },
          square.number ? el("span", { class: "num", "aria-hidden": "true" }, square.number) : null,
          letter,
        );
        if (square.bars) for (const [bit, side] of [[1, "top"], [2, "left"], [4, "bottom"], [8, "right"]]) if (square.bars & bit) cell.classList.add(`bar-${side}`);
        cell.addEventListener("pointerdown", (event) => {
          event.preventDefault();
          this.tap({ row, col });
        });
        this.cells.set(key({ row, col }), { cell, letter, row, col });
        line.append(cell);
      }
      this.grid.append(line);
    }
    // A rebus being typed, at a size that reads, over its square (which shows it too small).
    this.rebusEntry = el("div", { class: "rebus-entry", "aria-hidden": "true", hidden: true });
    // The keyboard goes to one input laid over the grid, so a phone shows its keyboard.
    // On a touch screen the on-screen keyboard below types, so the system's stays down
    // (inputmode none): no composition events, and the grid keeps its size.
    this.input = el("input", {
      class: "keys", "aria-label": "type answers here; Escape leaves the grid", autocapitalize: "characters",
      autocomplete: "off", autocorrect: "off", spellcheck: "false", enterkeyhint: "next", "data-keys": true,
      inputmode: this.touch ? "none" : null,
    });
    this.input.addEventListener("keydown", (event) => this.keydown(event));
    // Phones' keyboards send text, not keys; so do input methods (IME, accents), whose text
    // is typed once, when composed: the partial compositions before it ("f", "fe", "fer") were
    // each typed too, and "fer" filled six squares.
    const typeText = () => {
      const text = this.input.value;
      this.input.value = "";
      for (const character of text) this.pressKey(character === " " ? "space" : { letter: character });
    };
    this.composing = false;
    this.input.addEventListener("compositionstart", () => (this.composing = true));
    this.input.addEventListener("compositionend", () => {
      this.composing = false;
      typeText();
    });
    this.input.addEventListener("input", (event) => {
      if (this.composing || event.isComposing) return;
      typeText();
    });
    this.grid.addEventListener("pointerup", () => this.focusGrid());
    // A hardware keyboard on a touch screen types on the focused square.
    if (this.touch) this.grid.addEventListener("keydown", (event) => this.keydown(event));
    // A screen reader's activation of a square (a click with no pointer before it) moves there.
    this.grid.addEventListener("click", (event) => {
      const cell = event.target.closest(".cell[data-r]");
      if (cell && event.detail === 0) this.tap({ row: Number(cell.dataset.r), col: Number(cell.dataset.c) });
    });
    // The clue lists and the players come with the chat, once the grid is drawn (sides.js); until
    // then their places in the page are kept. Each clue's list item is kept with its clue.
    this.clueItems = new Map();
    const lists = el("div", { class: "lists", "data-lists": true });
    this.lists = lists;
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
        // Inviting comes first: it is what a player opens ⋯ for most.
        this.shareButton, this.nudgeButton, this.redoButton, this.rebusButton, this.flagButton, menu("check", "Check"), menu("reveal", "Reveal"), menu("clear", "Clear"),
        this.pauseButton, this.settingsButton,
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
          setTimeout(() => this.paused || this.focusGrid(), 0);
        },
      },
      this.undoButton, this.pencilButton, this.chatButton, this.more,
    );
    this.dock = this.touch ? this.buildDock() : null;
    // The puzzle's own words: who made it, its copyright, its notes, and why checking is off.
    const bylineText = [v.layout.author && `by ${v.layout.author}`, v.layout.copyright].filter(Boolean).join(" · ");
    const byline = bylineText ? el("p", { class: "byline", "data-byline": true }, bylineText) : null;
    const noSolution = v.layout.hasSolution
      ? null
      : el("p", { class: "notice", "data-no-solution": true }, "This puzzle came without its answers (a locked .puz without its key), so checking and revealing are off.");
    if (this.touch) {
      // One fixed screen: the lists, chat, players and notes are sheets (phone.js).
      this.cluesButton = el(
        "button",
        { type: "button", class: "clues-button", "data-clues-button": true, "aria-label": "clue lists", title: "Clues", onclick: () => openSheet(this, "clues") },
        ...labelled("☰", "Clues"),
      );
      tools.insertBefore(this.cluesButton, this.chatButton);
      const notes = v.layout.notes ? el("div", { class: "notes", "data-notes": true }, el("h3", {}, "Notes from the puzzle"), el("p", {}, v.layout.notes)) : null;
      this.main.replaceChildren(buildPhoneGame(this, { tools, lists, infoParts: [byline, notes, noSolution] }));
    } else {
      this.main.replaceChildren(this.desktop.buildDesktopGame(this, { tools, lists, byline, noSolution }));
    }
    // What a finished or read-only game turns off (not the buttons that still work then), and
    // the buttons that need the puzzle's answers: looked up once, set on every draw.
    this.freezable = [...tools.querySelectorAll("button:not([data-share]):not([data-nudge-button]):not([data-more]):not([data-settings]):not([data-chat-button]), summary")];
    this.answerButtons = [...tools.querySelectorAll("[data-action^=check],[data-action^=reveal]")];
    if (this.touch) fitGrid(this);
    this.focusGrid();
  }

  /** Gives the keys to the grid: on a touch screen its current square (roving focus, which
   * phones' screen readers follow), elsewhere the input over it, whose active descendant is the
   * current square. */
  focusGrid() {
    if (!this.grid) return;
    if (!this.touch) return this.input.focus({ preventScroll: true });
    this.cells.get(key(this.cursor))?.cell.focus({ preventScroll: true });
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
      // A sheet over the grid: no key types where the player cannot see.
      if (!name || this.openSheetName) return;
      if (name === "rebus") this.pressKey(this.cursor.rebus === null ? "rebus" : "enter");
      else if (name === "backspace") this.pressKey("backspace");
      else this.pressKey({ letter: name });
      this.focusGrid();
    });
    const step = (pressed, symbol, label) =>
      el("button", {
        type: "button", class: "step", "aria-label": label, "data-clue-step": pressed,
        // The focus goes to the square the new clue starts at, which says the clue.
        onclick: () => {
          this.pressKey(pressed);
          this.focusGrid();
        },
      }, symbol);
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

  /** Loads the clue lists, the players and the Download menu (once; the drawn grid came first) and draws them. */
  loadSides() {
    this.sidesLoaded ??= Promise.all([import("./sides.js"), stylesheet("sides.css")]).then(([sides]) => {
      if (!this.lists.isConnected) return;
      sides.buildLists(this);
      this.more.querySelector(".overflow").append(sides.downloadMenu(this));
      this.sides = sides;
      this.render();
    }, () => {
      // Not fetched (offline, before the app was cached): the next redraw tries again.
      this.sidesLoaded = null;
    });
  }

  /** Loads the chat (once; the drawn grid came first) and puts it in its place: a promise of
   * the panel, or of null when the page was left meanwhile. */
  loadChat() {
    this.chatLoaded ??= Promise.all([import("./chat.js"), stylesheet("chat.css")]).then(([{ ChatPanel }]) => {
      if (!this.chatSlot.isConnected) return null;
      const v = this.view;
      const chat = new ChatPanel({
        send: (text) => this.say(text),
        react: (messageKey, emoji, on) => this.sendReaction(messageKey, emoji, on),
        player: (authorID) => ({ name: this.nameOf(authorID), color: this.colorOf(authorID) || "var(--muted)" }),
        me: v.me,
        onSeen: () => this.seen(),
        // The phone's dock is in the page's flow now: nothing fixed covers the chat.
        coveredBelow: () => 0,
      });
      // On a phone the system keyboard types in the chat: the on-screen one steps aside.
      chat.field.addEventListener("focus", () => document.body.classList.add("chatting"));
      chat.field.addEventListener("blur", () => document.body.classList.remove("chatting"));
      this.stops.push(() => document.body.classList.remove("chatting"));
      this.chatSlot.replaceWith(chat.element);
      this.chat = chat;
      this.render();
      return chat;
    }, () => {
      // Not fetched (offline, before the app was cached): the next redraw tries again.
      this.chatLoaded = null;
      return null;
    });
    return this.chatLoaded;
  }

  render() {
    if (!this.view || !this.grid) return;
    this.renders = (this.renders ?? 0) + 1;
    this.renderGrid();
    this.renderClues();
    this.renderStatus();
    this.renderTimer();
    this.renderPlayers();
    this.renderEnding();
    this.chat?.render(this.state.messages, this.state.waitingMessages(), this.view.readOnly, this.state.reactions, this.view.quickReactions ?? []);
    if (!this.chatLoaded) {
      // The grid is drawn: what a phone needed to solve is here (the page-weight benchmark
      // counts what was asked for before this mark), and the chat follows.
      if (!performance.getEntriesByName("crossmate-grid-drawn").length) performance.mark("crossmate-grid-drawn");
      this.loadSides();
      this.loadChat();
      // Opened: a notification waiting for this game is answered (push.js is not needed to draw).
      import("./push.js").then((push) => push.readGame(this.gameID)).catch(() => {});
    }
    const frozen = this.view.readOnly || !!this.view.completion;
    // Each control's state is worked out once and written only when it changes (set twice per
    // draw, the redo button restyled the toolbar on every letter).
    const disabled = new Map();
    for (const control of this.freezable) {
      disabled.set(control, frozen);
      control.closest("details")?.classList.toggle("disabled", frozen);
    }
    disabled.set(this.undoButton, !this.view.canUndo || frozen);
    disabled.set(this.redoButton, !this.view.canRedo || frozen);
    for (const button of this.answerButtons) {
      disabled.set(button, frozen || !this.view.layout.hasSolution);
      setAttribute(button, "title", this.view.layout.hasSolution ? "" : "This puzzle came without its answers (a locked .puz without its key), so it cannot be checked or revealed.");
    }
    for (const [control, off] of disabled) if (control.hasAttribute("disabled") !== off) control.toggleAttribute("disabled", off);
    // Any player can invite; a removed player can neither invite nor nudge.
    // A finished puzzle takes nobody new (the next puzzle together is how to go on).
    this.shareButton.hidden = this.view.readOnly || !!this.view.completion;
    if (this.inviteButton) this.inviteButton.hidden = this.shareButton.hidden;
    this.nudgeButton.hidden = this.view.readOnly;
    setAttribute(this.pencilButton, "aria-pressed", String(this.cursor.pencil));
    this.pencilButton.classList.toggle("on", this.cursor.pencil);
    this.rebusButton.classList.toggle("on", this.cursor.rebus !== null);
    if (this.dock) {
      // The keyboard goes once the grid is final; the rebus key writes an open entry.
      this.dock.hidden = frozen;
      setText(this.rebusKey, this.cursor.rebus === null ? "Rebus" : "Enter");
      this.rebusKey.classList.toggle("on", this.cursor.rebus !== null);
    }
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

  renderGrid() {
    setAttribute(this.grid, "data-cursor", `${this.cursor.row},${this.cursor.col},${this.cursor.direction}`);
    // A screen reader hears the current square through the input that has the focus (on a
    // touch screen, the square itself has it).
    if (!this.touch) setAttribute(this.input, "aria-activedescendant", `cell-${this.cursor.row}-${this.cursor.col}`);
    const word = this.board.clue(this.cursor, this.cursor.direction);
    // Where the cursor entered its word: that square's name says the clue (as a word's first
    // square's always does), heard once as the cursor arrives. A turn on the same square has
    // no new square to hear, so the new clue is said by itself.
    const wordID = word ? clueID(word.number, word.direction) : "";
    if (this.entered?.wordID !== wordID) {
      const turned = this.entered && this.entered.at === key(this.cursor);
      this.entered = { wordID, at: key(this.cursor) };
      setText(this.clueAnnouncer, turned && word ? `${word.number} ${word.direction === "across" ? "Across" : "Down"}, ${word.text}` : "");
    }
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
    // Only what changed is written: one letter typed touches a square or two, so a square
    // whose inputs are as they were last time is passed over without a call into the DOM.
    for (const [where, entry] of this.cells) {
      const { cell, letter } = entry;
      const { row, col } = entry;
      const flag = flagged.get(where);
      const square = this.shown(entry);
      const here = row === this.cursor.row && col === this.cursor.col;
      const text = this.cursor.rebus !== null && here ? this.cursor.rebus : square.letter;
      const peer = peerAt.get(where);
      const along = peerWord.get(where);
      const color = square.pendingEdit ? "" : this.colorOf(square.authorID);
      const flagColor = flag ? this.colorOf(flag.authorID) : "transparent";
      const peerColor = peer ? this.colorOf(peer.authorID) : "transparent";
      const alongColor = along ? this.colorOf(along.authorID) : "transparent";
      // What a screen reader hears of the square, described again only when it would change.
      const withClue = here && this.entered.at === where;
      const heard = [text, square.pencil, square.verdict, square.pendingEdit, this.cursor.direction, withClue,
        text && square.authorID ? this.nameOf(square.authorID) : "", flag ? this.nameOf(flag.authorID) : ""].join("|");
      const drawn = [heard, here, inWord.has(where), !!this.caught?.has(where), color, flagColor, peerColor, alongColor].join("|");
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
      cell.classList.toggle("caught", !!this.caught?.has(where));
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
    if (this.touch && document.activeElement?.closest?.(".grid") === this.grid) this.focusGrid();
  }

  /** The open rebus entry over the current square, grown to its text and kept inside the grid. */
  renderRebusEntry() {
    const open = this.cursor.rebus !== null;
    if (this.rebusEntry.hidden === open) this.rebusEntry.hidden = !open;
    if (!open) return;
    const cell = this.cells.get(key(this.cursor))?.cell;
    if (!cell) return;
    setText(this.rebusEntry, this.cursor.rebus);
    setStyle(this.rebusEntry, "min-width", `${cell.offsetWidth + 8}px`);
    setStyle(this.rebusEntry, "height", `${Math.max(cell.offsetHeight + 8, 32)}px`);
    const width = this.rebusEntry.offsetWidth;
    const left = Math.max(0, Math.min(cell.offsetLeft - 4, this.grid.offsetLeft + this.grid.offsetWidth - width));
    setStyle(this.rebusEntry, "left", `${left}px`);
    setStyle(this.rebusEntry, "top", `${Math.max(0, cell.offsetTop - 4)}px`);
  }

  /** "17 Across, square 3 of 5, A, pencil" (the clue on a word's first square, and on the
   * square the cursor entered the word at). */
  describe(position, square, text, withClue = false) {
    const direction = this.board.clue(position, this.cursor.direction) ? this.cursor.direction : this.cursor.direction === "across" ? "down" : "across";
    const clue = this.board.clue(position, direction);
    const parts = [];
    if (clue) {
      const index = this.board.indexInWord(position, direction);
      parts.push(`${clue.number} ${direction === "across" ? "Across" : "Down"}, square ${index + 1} of ${clue.cells.length}`);
      if (index === 0 || withClue) parts.push(clue.text);
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
    // On a phone the label is short ("17A"), leaving the width to the clue; it is read in full.
    const shortLabel = word ? `${word.number}${word.direction === "across" ? "A" : "D"}` : "";
    // Rebuilt only when the clue changes, so a screen reader announces a new clue, not every key.
    const shown = word ? `${clueID(word.number, word.direction)}:${word.text}` : "";
    const flags = word ? this.state.flags.filter((flag) => flag.number === word.number && flag.direction === word.direction) : [];
    const flaggedBy = flags.map((flag) => this.nameOf(flag.authorID)).join(", ");
    if (this.clueBar.dataset.shown !== shown + flaggedBy) {
      this.clueBar.dataset.shown = shown + flaggedBy;
      // The label is one unit ("47 Down" never breaks inside); the clue wraps between words.
      this.clueBar.replaceChildren(
        ...(this.touch
          ? [el("b", { class: "label", "aria-hidden": "true" }, shortLabel), el("span", { class: "sr-only" }, label)]
          : [el("b", { class: "label" }, label)]),
        " ",
        el(
          "span",
          { class: "text" },
          word?.text ?? "",
          ...(flags.length ? [el("span", { class: "flagnote", "data-flagged-by": flaggedBy, style: `color:${this.colorOf(flags[0].authorID)}` }, ` ⚑ ${flaggedBy}`)] : []),
        ),
      );
      if (this.touch) fitClue(this);
    }
    const mine = !!this.myFlag();
    setAttribute(this.flagButton, "aria-pressed", String(mine));
    this.flagButton.classList.toggle("on", mine);
    this.sides?.renderLists(this, word);
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
    setAttribute(this.statusBox, "data-sync", state);
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
    // The clock counts while someone solves (SolvingTime); a minute with no move stops it, and
    // it says so rather than seem frozen.
    const { seconds, countsFor } = this.view.timer ?? { seconds: 0, countsFor: 0 };
    const since = Math.floor((Date.now() - (this.timerAt ?? Date.now())) / 1000);
    const idle = !this.paused && !this.view.completion && seconds > 0 && since >= countsFor;
    setText(this.timerBox, clock(this.paused ? this.pausedAt : this.shownSeconds()) + (idle ? " · idle" : ""));
    setAttribute(this.timerBox, "title", idle ? "Stopped: nobody has played for a minute; it counts again with the next letter." : "Solving time");
    setAttribute(this.timerBox, "data-idle", String(idle));
  }

  /** The players (sides.js, once loaded): who is here, Follow, and the owner's Remove. */
  renderPlayers() {
    this.sides?.renderPlayers(this);
  }

  renderEnding() {
    const completion = this.view.completion;
    if (!completion) {
      this.sawPlaying = true;
      if (this.banner.firstChild) this.banner.replaceChildren();
      return;
    }
    // The finish (banner, scores, replay) is drawn by ending.js, loaded with the first
    // finished game.
    this.withEnding((ending) => ending.drawEnding(this));
  }

  /** The replay, once the server sent it. */
  renderReplay() {
    this.withEnding((ending) => ending.drawReplay(this));
  }

  /** Runs `draw` with ending.js (loaded once; a failed fetch is tried again next time). */
  withEnding(draw) {
    this.ending ??= Promise.all([import("./ending.js"), stylesheet("pages.css")]).then(([ending]) => ending).catch(() => {
      this.ending = null;
      return null;
    });
    this.ending.then((ending) => ending && this.view?.completion && draw(ending));
  }
}
