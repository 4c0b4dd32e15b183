// A game's chat panel: the conversation as the server orders it (gamestate.js holds it), the
// messages typed here and not yet answered (shown as sending), and a line to write on. The page
// sends a message as a command, so a message typed offline waits in the queue like a letter.

import { el } from "./dom.js";
import { limits } from "./limits.js";

/** A message is at most this many bytes of UTF-8 (the server's rule, from its limits table, to count down). */
export const MAXIMUM_MESSAGE_BYTES = limits.chatMessageBytes;

const bytes = (text) => new TextEncoder().encode(text).length;

const time = (millis) => new Date(millis).toLocaleTimeString([], { hour: "numeric", minute: "2-digit" });

export class ChatPanel {
  /**
   * `send(text)` sends a message; `player(authorID)` is { name, color } as the roster shows them;
   * `me` is this account. `onSeen()` is called when the conversation comes into view;
   * `coveredBelow()` is how much of the window's bottom something fixed covers (the phone's dock).
   */
  constructor({ send, react, player, me, onSeen, coveredBelow = () => 0 }) {
    this.coveredBelow = coveredBelow;
    this.react = react;
    this.picking = null; // the message whose reaction picker is open
    this.player = player;
    this.me = me;
    this.shownSignature = "";
    this.log = el("ol", { class: "chat-log", role: "log", "aria-live": "polite", "aria-label": "messages", "data-chat-log": true });
    this.empty = el("p", { class: "chat-empty" }, "No messages yet. Say hello, or point at a clue.");
    this.field = el("input", {
      type: "text", name: "message", "aria-label": "message to the other players", placeholder: "Message the others…",
      autocomplete: "off", enterkeyhint: "send", "data-chat-input": true,
    });
    this.count = el("span", { class: "chat-count", "aria-live": "polite" });
    this.form = el(
      "form",
      { class: "chat-form" },
      this.field,
      el("button", { type: "submit", "data-chat-send": true }, "Send"),
    );
    this.field.addEventListener("input", () => this.countDown());
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = this.field.value.trim();
      if (!text) return;
      if (bytes(text) > MAXIMUM_MESSAGE_BYTES) return this.countDown();
      this.field.value = "";
      this.countDown();
      send(text);
    });
    // A tap on a message (a touch screen has no hover) shows its react button; another hides it.
    this.chosen = null;
    this.log.addEventListener("click", (event) => {
      const item = event.target.closest("li[data-message]");
      if (!item || event.target.closest("button")) return;
      this.chosen = this.chosen === item.dataset.message ? null : item.dataset.message;
      for (const each of this.log.querySelectorAll("li.chosen")) each.classList.remove("chosen");
      if (this.chosen) item.classList.add("chosen");
    });
    this.element = el("section", { class: "chat", id: "chat", "aria-label": "chat", "data-chat": true }, el("h2", {}, "Chat"), this.log, this.empty, this.form, this.count);
    // In view (scrolled to on a phone, or always on a wide screen): what arrived is seen.
    this.observer = new IntersectionObserver(() => this.inView && onSeen(), { threshold: [0, 0.25, 0.5, 0.75, 1] });
    this.observer.observe(this.log);
  }

  /** Whether a person can see the conversation now: on screen, above what covers the bottom. */
  get inView() {
    if (document.hidden || !this.log.isConnected) return false;
    const box = this.log.getBoundingClientRect();
    return box.height > 0 && box.bottom > 0 && box.top < window.innerHeight - this.coveredBelow() - 16;
  }

  stop() {
    this.observer.disconnect();
  }

  /** A message's reactions: a chip per emoji (pressed when this player gave it; a press takes it
   * back or gives it), and a button that opens the picker. */
  reactionsOf(key, tallies) {
    const chips = tallies.map((tally) => {
      const mine = tally.authors.includes(this.me);
      const names = tally.authors.map((authorID) => (authorID === this.me ? "you" : this.player(authorID).name));
      return el(
        "button",
        {
          type: "button", class: "reaction", "data-reaction": tally.emoji, "aria-pressed": String(mine), disabled: this.frozen,
          "aria-label": `${tally.emoji} ${tally.authors.length}: ${names.join(", ")}`, title: names.join(", "),
          onclick: () => this.react(key, tally.emoji, !mine),
        },
        `${tally.emoji} ${tally.authors.length}`,
      );
    });
    const open = this.picking === key;
    const picker = open
      ? el(
          "span",
          { class: "picker", role: "group", "aria-label": "react with" },
          ...this.quick.map((emoji) =>
            el("button", { type: "button", class: "pick", "data-pick": emoji, "aria-label": `react with ${emoji}`, onclick: () => {
              this.picking = null;
              this.react(key, emoji, true);
            } }, emoji),
          ),
        )
      : null;
    const add = this.frozen || !this.quick.length
      ? null
      : el("button", { type: "button", class: "react-add", "data-react": key, "aria-expanded": String(open), "aria-label": "react to this message", onclick: () => {
          this.picking = open ? null : key;
          this.render(...this.last);
          this.log.querySelector(`[data-react="${CSS.escape(key)}"]`)?.focus();
        } }, open ? "×" : "+");
    return el("span", { class: "reactions" }, ...chips, add, picker);
  }

  /** A message the server refused goes back on the line (when the line is empty), so nothing typed is lost. */
  restore(text) {
    if (!this.field.value) this.field.value = text;
    this.countDown();
  }

  countDown() {
    const used = bytes(this.field.value.trim());
    this.count.textContent = used > MAXIMUM_MESSAGE_BYTES - 100 ? `${Math.max(0, MAXIMUM_MESSAGE_BYTES - used)} bytes left${used > MAXIMUM_MESSAGE_BYTES ? ": too long to send" : ""}` : "";
  }

  /**
   * Draws `messages` (the server's order) with their `reactions` (message key → tallies, as the
   * server counts them) and `waiting` (typed here, not yet answered); `quick` are the emoji the
   * picker offers.
   */
  render(messages, waiting, frozen, reactions = new Map(), quick = []) {
    this.last = [messages, waiting, frozen, reactions, quick];
    this.form.hidden = frozen;
    this.frozen = frozen;
    this.quick = quick;
    const signature = JSON.stringify([
      messages.map((message) => message.key), waiting.map((message) => message.id), messages.map((m) => this.player(m.authorID).color),
      [...reactions], this.picking, frozen,
    ]);
    if (signature === this.shownSignature) return;
    this.shownSignature = signature;
    const atBottom = this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 24;
    // A message right after one of the same player's (within five minutes) goes under it
    // without their name again; a screen reader still hears whose it is.
    let previous = null;
    const line = (authorID, text, at, extra = {}) => {
      const who = this.player(authorID);
      const own = authorID === this.me;
      const name = own ? "You" : who.name;
      const continued = previous && previous.authorID === authorID && at - previous.at < 5 * 60_000;
      previous = { authorID, at };
      return el(
        "li",
        { class: `${own ? "own" : ""}${continued ? " continued" : ""}${extra["data-message"] && extra["data-message"] === this.chosen ? " chosen" : ""}`, ...extra },
        el("span", { class: continued ? "who sr-only" : "who" }, el("span", { class: "swatch", style: `background:${who.color}`, "aria-hidden": "true" }), name),
        continued ? null : el("time", { datetime: new Date(at).toISOString() }, time(at)),
        el("span", { class: "text" }, text),
        extra["data-message"] ? this.reactionsOf(extra["data-message"], reactions.get(extra["data-message"]) ?? []) : null,
      );
    };
    this.log.replaceChildren(
      ...messages.map((message) => line(message.authorID, message.text, message.at, { "data-message": message.key })),
      ...waiting.map((message) =>
        line(this.me, message.text, message.typedAt, { class: "own sending", "data-sending": message.id, "aria-label": `sending: ${message.text}` }),
      ),
    );
    this.empty.hidden = messages.length + waiting.length > 0;
    if (atBottom || waiting.length) this.log.scrollTop = this.log.scrollHeight;
  }
}
