// Drawing the solving page: its elements built once (build) and brought up to date from the
// page's model (gamemodel.js) by render and its parts, writing only what changed. The page
// (game.js) owns the model and hands this view a handlers object for what its elements are
// pressed for — `issue(command)`, `press(key)`, `tap(position)`, `keydown(event)`,
// `toggleFlag()`, `scoped(kind, scope)`, `pause(paused)`, `say(text)`,
// `react(messageKey, emoji, on)`, `follow(authorID)`, `stopFollowing()` — as ChatPanel is
// handed its own. The grid is gridview.js's; the phone's one screen phone.js's, the wide
// screen's desktop.js's. The chat (chat.js) comes once the grid is drawn, the finish
// (ending.js) with the first finished game; the clue lists and the players (sides.js) with the
// chat. Each of those draws into this view and keeps its own elements on it.

import { connection } from "./connection.js";
import { clock, el, setAttribute, setText, stylesheet, toast } from "./dom.js";
import { GridView } from "./gridview.js";
import { clueID } from "./keys.js";
import { PhoneLayout } from "./phone.js";
import { labelled, Toolbar } from "./toolbar.js";

export class GameView {
  /** `desktop`: desktop.js, loaded by the page where the screen is wide (a phone never needs it). */
  constructor(main, model, handlers, { touch, desktop }) {
    this.main = main;
    this.model = model;
    this.handlers = handlers;
    this.touch = touch;
    this.desktop = desktop;
    this.stops = [];
    this.renders = 0;
    // Menus close on Escape and on a click anywhere else.
    const outside = (event) => {
      this.closeMenus(event.target.closest?.("details.menu"));
      if (this.tools && !this.tools.more.contains(event.target)) this.toggleMore(false);
      // A click on nothing that takes the keys leaves them with the grid, not the page.
      setTimeout(() => {
        const nowhere = document.activeElement === document.body || document.activeElement === this.main;
        if (nowhere && !this.model.paused && !document.querySelector("dialog[open]")) this.focusGrid();
      }, 0);
    };
    const escape = (event) => {
      if (event.key !== "Escape") return;
      if (this.phone?.openName) return this.phone.close();
      if (this.main.querySelector("details.menu[open]") || this.tools?.more.classList.contains("open")) {
        this.closeMenus();
        this.toggleMore(false);
        this.focusGrid();
      }
    };
    document.addEventListener("click", outside);
    document.addEventListener("keydown", escape);
    this.stops.push(() => document.removeEventListener("click", outside), () => document.removeEventListener("keydown", escape));
  }

  stop() {
    for (const stop of this.stops) stop();
    this.chat?.stop();
  }

  build() {
    const { layout } = this.model.view;
    document.title = `${layout.title || "Crossmate"} · Crossmate`;
    this.statusBox = el("span", { class: "status", "data-sync": true, "data-sync-status": true });
    // What a screen reader hears of the connection: a change of state ("Offline"), never the
    // count of letters being saved at each key.
    this.statusAnnouncer = el("span", { class: "sr-only", role: "status", "data-sync-announcer": true });
    this.timerBox = el("span", { class: "timer", "data-timer": true, "aria-label": "solving time" });
    this.pausedCover = el(
      "div",
      { class: "paused-cover", "data-paused": true, hidden: true },
      el("p", {}, "Paused. Your clock has stopped."),
      el("button", { type: "button", class: "primary", onclick: () => this.handlers.pause(false) }, "Go on solving"),
    );
    this.roster = el("ul", { class: "roster", "aria-label": "players" });
    // The chat comes once the grid is drawn (`loadChat`): a phone opening a game fetches what
    // it needs to solve first. Until then its place in the page is kept.
    this.chat = null;
    this.chatSlot = el("div", { "data-chat-slot": true });
    // The clue bar: the clue is heard with the square the cursor enters it at (its name says
    // so, gridview.js), so the bar is not read out as well.
    this.clueBar = el("div", { class: "cluebar", "data-clue-bar": true });
    this.notice = el("div", { class: "notice", role: "status" });
    this.catchUpBox = el("div", { class: "catchup", role: "status", "data-catch-up": true });
    this.banner = el("div", { class: "banner", "aria-live": "polite" });
    this.grid = new GridView(this.model, this.handlers, { touch: this.touch });
    // The clue lists and the players come with the chat, once the grid is drawn (sides.js); until
    // then their places in the page are kept. Each clue's list item is kept with its clue.
    this.clueItems = new Map();
    this.lists = el("div", { class: "lists", "data-lists": true });
    this.tools = new Toolbar(this);
    const tools = this.tools.element;
    // The puzzle's own words: who made it, its copyright, its notes, and why checking is off.
    const bylineText = [layout.author && `by ${layout.author}`, layout.copyright].filter(Boolean).join(" · ");
    const byline = bylineText ? el("p", { class: "byline", "data-byline": true }, bylineText) : null;
    const noSolution = layout.hasSolution
      ? null
      : el("p", { class: "notice", "data-no-solution": true }, "This puzzle came without its answers (a locked .puz without its key), so checking and revealing are off.");
    if (this.touch) {
      // One fixed screen: the lists, chat, players and notes are sheets (phone.js).
      this.cluesButton = el(
        "button",
        { type: "button", class: "clues-button", "data-clues-button": true, "aria-label": "clue lists", title: "Clues", onclick: () => this.phone.open("clues") },
        ...labelled("☰", "Clues"),
      );
      this.tools.insert(this.cluesButton);
      const notes = layout.notes ? el("div", { class: "notes", "data-notes": true }, el("h3", {}, "Notes from the puzzle"), el("p", {}, layout.notes)) : null;
      this.phone = new PhoneLayout(this, { tools, lists: this.lists, infoParts: [byline, notes, noSolution] });
      this.main.replaceChildren(this.phone.element);
    } else {
      this.phone = null;
      this.main.replaceChildren(this.desktop.buildDesktopGame(this, { tools, lists: this.lists, byline, noSolution }));
    }
    this.phone?.fitGrid();
    this.focusGrid();
  }

  /** Gives the keys to the grid (gridview.js says where). */
  focusGrid() {
    this.grid?.focus();
  }

  /** Loads the clue lists, the players and the Download menu (once; the drawn grid came first) and draws them. */
  loadSides() {
    this.sidesLoaded ??= Promise.all([import("./sides.js"), stylesheet("sides.css")]).then(([sides]) => {
      if (!this.lists.isConnected) return;
      sides.buildLists(this);
      this.tools.overflow.append(sides.downloadMenu(this));
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
      const { model, handlers } = this;
      const chat = new ChatPanel({
        send: (text) => handlers.say(text),
        react: (messageKey, emoji, on) => handlers.react(messageKey, emoji, on),
        player: (authorID) => ({ name: model.nameOf(authorID), color: model.colorOf(authorID) || "var(--muted)" }),
        me: model.view.me,
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
    const { model } = this;
    if (!model.view || !this.grid) return;
    this.renders++;
    this.grid.render();
    this.renderClues();
    this.renderStatus();
    this.renderTimer();
    this.renderPlayers();
    this.renderEnding();
    this.chat?.render(model.state.messages, model.state.waitingMessages(), model.view.readOnly, model.state.reactions, model.view.quickReactions ?? []);
    if (!this.chatLoaded) {
      // The grid is drawn: what a phone needed to solve is here (the page-weight benchmark
      // counts what was asked for before this mark), and the chat follows.
      if (!performance.getEntriesByName("crossmate-grid-drawn").length) performance.mark("crossmate-grid-drawn");
      this.loadSides();
      this.loadChat();
      // Opened: a notification waiting for this game is answered (push.js is not needed to draw).
      import("./push.js").then((push) => push.readGame(model.gameID)).catch(() => {});
    }
    const frozen = this.tools.render();
    if (this.phone) {
      this.phone.inviteButton.hidden = this.tools.shareButton.hidden;
      this.phone.render(frozen);
    }
  }

  /** The conversation came into view: nothing in it is unseen. */
  seen() {
    if (!this.model.unseen) return;
    this.model.unseen = 0;
    this.renderUnseen();
  }

  /** Unseen messages: on the Chat button and in the tab's title. */
  renderUnseen() {
    this.tools?.renderUnseen();
  }

  /** The keys go back to the grid (on a phone, an open sheet closes back to it). */
  backToGrid() {
    if (this.phone?.openName) this.phone.close();
    else this.focusGrid();
  }

  /** Opens or closes the ⋯ tools. */
  toggleMore(open) {
    this.tools?.toggleMore(open);
  }

  /** Open menus close on Escape and on a click anywhere else. */
  closeMenus(except) {
    for (const menu of this.main.querySelectorAll("details.menu[open]")) if (menu !== except) menu.open = false;
  }

  renderClues() {
    const { model } = this;
    const word = model.word();
    const label = word ? `${word.number} ${word.direction === "across" ? "Across" : "Down"}` : "";
    // On a phone the label is short ("17A"), leaving the width to the clue; it is read in full.
    const shortLabel = word ? `${word.number}${word.direction === "across" ? "A" : "D"}` : "";
    // Rebuilt only when the clue changes, so a screen reader announces a new clue, not every key.
    const shown = word ? `${clueID(word.number, word.direction)}:${word.text}` : "";
    const flags = word ? model.state.flags.filter((flag) => flag.number === word.number && flag.direction === word.direction) : [];
    const flaggedBy = flags.map((flag) => model.nameOf(flag.authorID)).join(", ");
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
          ...(flags.length ? [el("span", { class: "flagnote", "data-flagged-by": flaggedBy, style: `color:${model.colorOf(flags[0].authorID)}` }, ` ⚑ ${flaggedBy}`)] : []),
        ),
      );
      this.phone?.fitClue();
    }
    this.sides?.renderLists(this, word);
  }

  renderStatus() {
    if (!this.statusBox) return;
    const { view, state, catchUpLine } = this.model;
    const unsent = state.pending.size;
    let text;
    let status;
    if (view?.readOnly) [text, status] = ["Read-only", "readonly"];
    else if (connection.state === "live" && !view?.stale) [text, status] = [unsent ? `Saving ${unsent}…` : "Live", "live"];
    else if (connection.state === "offline") [text, status] = [`Offline${unsent ? ` · ${unsent} unsent` : ""}`, "offline"];
    else [text, status] = [`Reconnecting…${unsent ? ` · ${unsent} unsent` : ""}`, "reconnecting"];
    setText(this.statusBox, text);
    if (this.statusBox.dataset.sync !== status) {
      this.statusAnnouncer.textContent = { live: "Live", readonly: "Read-only", offline: "Offline", reconnecting: "Reconnecting" }[status];
    }
    setAttribute(this.statusBox, "data-sync", status);
    setText(this.notice, view?.readOnly ? "You were removed from this game by its owner. You can still look at it, but not change it." : "");
    setText(this.catchUpBox, catchUpLine ? `Since you were last here: ${catchUpLine}.` : "");
  }

  /** The clock counts while someone solves (SolvingTime); a minute with no move stops it, and
   * it says so rather than seem frozen. */
  renderTimer() {
    const { model } = this;
    if (!model.view || !this.timerBox) return;
    const idle = model.idle();
    setText(this.timerBox, clock(model.paused ? model.pausedAt : model.shownSeconds()) + (idle ? " · idle" : ""));
    setAttribute(this.timerBox, "title", idle ? "Stopped: nobody has played for a minute; it counts again with the next letter." : "Solving time");
    setAttribute(this.timerBox, "data-idle", String(idle));
  }

  /** The players (sides.js, once loaded): who is here, Follow, and the owner's Remove. */
  renderPlayers() {
    this.sides?.renderPlayers(this);
  }

  renderEnding() {
    if (!this.model.view.completion) {
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
    this.ending.then((ending) => ending && this.model.view?.completion && draw(ending));
  }

  /** Pause hides the grid and the clues behind the cover until this player goes on. */
  showPaused(paused) {
    this.main.querySelector(".game").classList.toggle("paused", paused);
    this.pausedCover.hidden = !paused;
    if (paused) this.pausedCover.querySelector("button").focus();
    else this.focusGrid();
    this.renderTimer();
  }

  /** Shows the chat (on a phone, its sheet over the grid) and puts the cursor on its line. */
  async openChat() {
    this.toggleMore(false);
    this.phone?.open("chat");
    const chat = await this.loadChat();
    if (!chat) return;
    if (!this.touch) chat.element.scrollIntoView({ block: "end", behavior: "smooth" });
    chat.field.focus({ preventScroll: true });
    this.seen();
  }

  /** A modal question before a whole-puzzle reveal or clear (confirm.js, loaded when first asked). */
  async confirmPuzzle(kind) {
    const [{ confirmPuzzle }] = await Promise.all([import("./confirm.js"), stylesheet("pages.css")]);
    confirmPuzzle(this, kind);
  }

  async openSettings() {
    this.toggleMore(false);
    const { openSettings } = await import("./settingsdialog.js");
    openSettings(() => this.focusGrid());
  }

  /** The share dialog (share.js, loaded the first time): any player makes and copies links. */
  async share() {
    try {
      const { openShare } = await import("./share.js");
      openShare({ gameID: this.model.gameID, title: this.model.view.layout.title || "Untitled" }, () => this.focusGrid());
    } catch (failure) {
      toast(failure.message, "error");
    }
  }

  /** Nudge (sides.js): asks the others to come and help. */
  async nudge() {
    (await import("./sides.js")).nudge(this);
  }
}
