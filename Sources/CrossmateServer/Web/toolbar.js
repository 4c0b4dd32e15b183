// The solving page's tools: Undo and Pencil always in sight, the rest behind ⋯ on a phone (one
// row) and in sight on a wide screen; Check, Reveal and Clear as menus of scopes; the Chat
// button with its count of unseen messages. Built once for a GameView (gameview.js) and set
// from its model on every draw; what a tool does is the page's (the view's handlers) or the
// view's (dialogs it opens).

import { el, setAttribute } from "./dom.js";

/** A button's face: a symbol and a word; on a phone the word is for screen readers only. */
export function labelled(symbol, word) {
  return [el("span", { class: "symbol", "aria-hidden": "true" }, symbol), el("span", { class: "label" }, word)];
}

export class Toolbar {
  constructor(view) {
    this.view = view;
    const { handlers } = view;
    this.undoButton = el("button", { type: "button", class: "undo", "data-undo": true, title: "Undo (Ctrl+Z)", onclick: () => handlers.issue({ kind: "undo" }) }, ...labelled("↶", "Undo"));
    this.redoButton = el("button", { type: "button", class: "redo", "data-redo": true, title: "Redo (Ctrl+Shift+Z)", onclick: () => handlers.issue({ kind: "redo" }) }, ...labelled("↷", "Redo"));
    this.pencilButton = el("button", { type: "button", class: "pencil", "data-pencil": true, "aria-pressed": "false", title: "Pencil (Ctrl+P)", onclick: () => handlers.press("pencil") }, ...labelled("✎", "Pencil"));
    this.flagButton = el("button", { type: "button", class: "flag", "data-flag": true, "aria-pressed": "false", title: "Flag this clue for the others", onclick: () => handlers.toggleFlag() }, ...labelled("⚑", "Flag"));
    this.rebusButton = el("button", { type: "button", "data-rebus": true, title: "Rebus (Insert)", onclick: () => handlers.press("rebus") }, "Rebus");
    this.shareButton = el("button", { type: "button", "data-share": true, onclick: () => view.share() }, "Share");
    this.nudgeButton = el("button", { type: "button", "data-nudge-button": true, title: "ask the others to come and help", onclick: () => view.nudge() }, "Nudge");
    this.chatBadge = el("span", { class: "badge", "data-chat-unseen": true, hidden: true });
    this.chatButton = el("button", { type: "button", class: "chat-button", "data-chat-button": true, "aria-label": "chat", title: "Chat", onclick: () => view.openChat() }, ...labelled("✉", "Chat"), this.chatBadge);
    this.moreButton = el("button", { type: "button", class: "more-button", "aria-expanded": "false", "aria-controls": "more-tools", "aria-label": "more tools", "data-more": true, onclick: () => this.toggleMore() }, "⋯");
    const pauseButton = el("button", { type: "button", "data-pause": true, onclick: () => handlers.pause(true) }, ...labelled("❚❚", "Pause"));
    const settingsButton = el("button", { type: "button", "data-settings": true, onclick: () => view.openSettings() }, ...labelled("⚙", "Settings"));
    this.overflow = el(
      "div",
      { class: "overflow", id: "more-tools" },
      // Inviting comes first: it is what a player opens ⋯ for most.
      this.shareButton, this.nudgeButton, this.redoButton, this.rebusButton, this.flagButton,
      this.menu("check", "Check"), this.menu("reveal", "Reveal"), this.menu("clear", "Clear"), pauseButton, settingsButton,
    );
    this.more = el("div", { class: "more" }, this.moreButton, this.overflow);
    this.element = el(
      "div",
      {
        class: "tools",
        // After any button the grid has the keys again (after Share, letters were lost).
        onclick: (event) => {
          const button = event.target.closest("button");
          if (!button || event.target.closest("summary") || button === this.moreButton || button === this.chatButton) return;
          this.toggleMore(false);
          // (Paused, the focus stays on the cover's button.)
          setTimeout(() => view.model.paused || view.focusGrid(), 0);
        },
      },
      this.undoButton, this.pencilButton, this.chatButton, this.more,
    );
    // What a finished or read-only game turns off (not the buttons that still work then), and
    // the buttons that need the puzzle's answers: looked up once, set on every draw.
    this.freezable = [...this.element.querySelectorAll("button:not([data-share]):not([data-nudge-button]):not([data-more]):not([data-settings]):not([data-chat-button]), summary")];
    this.answerButtons = [...this.element.querySelectorAll("[data-action^=check],[data-action^=reveal]")];
  }

  /** Check, Reveal or Clear: a square, the word or the puzzle. */
  menu(name, label) {
    const { view } = this;
    return el(
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
            if (scope === "puzzle" && name !== "check") return view.confirmPuzzle(name);
            view.handlers.scoped(name, scope);
            view.focusGrid();
          } }, scope[0].toUpperCase() + scope.slice(1)),
        ),
      ),
    );
  }

  /** A phone's button placed before Chat (Clues). */
  insert(button) {
    this.element.insertBefore(button, this.chatButton);
  }

  /** The tools as the game allows them now. Each control's state is worked out once and
   * written only when it changes (set twice per draw, the redo button restyled the toolbar on
   * every letter). */
  render() {
    const { view, cursor } = this.view.model;
    const myFlag = !!this.view.model.myFlag();
    const frozen = view.readOnly || !!view.completion;
    const disabled = new Map();
    for (const control of this.freezable) {
      disabled.set(control, frozen);
      control.closest("details")?.classList.toggle("disabled", frozen);
    }
    disabled.set(this.undoButton, !view.canUndo || frozen);
    disabled.set(this.redoButton, !view.canRedo || frozen);
    for (const button of this.answerButtons) {
      disabled.set(button, frozen || !view.layout.hasSolution);
      setAttribute(button, "title", view.layout.hasSolution ? "" : "This puzzle came without its answers (a locked .puz without its key), so it cannot be checked or revealed.");
    }
    for (const [control, off] of disabled) if (control.hasAttribute("disabled") !== off) control.toggleAttribute("disabled", off);
    // Any player can invite; a removed player can neither invite nor nudge.
    // A finished puzzle takes nobody new (the next puzzle together is how to go on).
    this.shareButton.hidden = view.readOnly || !!view.completion;
    this.nudgeButton.hidden = view.readOnly;
    setAttribute(this.pencilButton, "aria-pressed", String(cursor.pencil));
    this.pencilButton.classList.toggle("on", cursor.pencil);
    this.rebusButton.classList.toggle("on", cursor.rebus !== null);
    setAttribute(this.flagButton, "aria-pressed", String(myFlag));
    this.flagButton.classList.toggle("on", myFlag);
    return frozen;
  }

  /** Unseen messages: on the Chat button and in the tab's title. */
  renderUnseen() {
    const { unseen: count, view } = this.view.model;
    this.chatBadge.textContent = count ? String(count) : "";
    this.chatBadge.hidden = !count;
    this.chatButton.setAttribute("aria-label", count ? `chat, ${count} new ${count === 1 ? "message" : "messages"}` : "chat");
    document.title = `${count ? `(${count}) ` : ""}${view.layout.title || "Crossmate"} · Crossmate`;
  }

  /** Opens or closes the ⋯ tools (on a phone; on a wide screen they are always in sight). */
  toggleMore(open = !this.more.classList.contains("open")) {
    this.more.classList.toggle("open", open);
    this.moreButton.setAttribute("aria-expanded", String(open));
  }
}
