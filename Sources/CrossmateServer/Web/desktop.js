// The solving page on a wide screen: toolbar, notes, the roster above the grid, the clue lists
// and the chat beside it. Loaded only where it is drawn (a phone draws phone.js's one screen).
import { el } from "./dom.js";

/** The page's element for a GameView (gameview.js), from the parts every layout shares. */
export function buildDesktopGame(view, { tools, lists, byline, noSolution }) {
  const { layout } = view.model.view;
  const { grid } = view;
  return el(
    "section",
    { class: "game" },
    el(
      "div",
      { class: "toolbar" },
      el("a", { href: "/", "data-route": true, class: "back", title: "Your games", "aria-label": "your games" }, "←"),
      el("h1", {}, layout.title || "Untitled"),
      view.timerBox,
      view.statusBox,
      view.statusAnnouncer,
      grid.clueAnnouncer,
      tools,
    ),
    byline,
    layout.notes
      ? el("details", { class: "notes", "data-notes": true }, el("summary", {}, "Notes from the puzzle"), el("p", {}, layout.notes))
      : null,
    noSolution,
    view.notice,
    view.catchUpBox,
    view.banner,
    // Who is playing, above the grid.
    view.roster,
    el(
      "div",
      { class: "board" },
      el("div", { class: "play" }, view.clueBar, el("div", { class: "gridwrap" }, grid.element, grid.rebusEntry, grid.input, view.pausedCover)),
      el("div", { class: "side" }, lists, view.chatSlot),
    ),
    el("p", { class: "help" }, "Type to fill; arrows move; Space turns; Tab goes to the next word; Insert opens a rebus (Enter writes it); Ctrl+P pencil; Ctrl+Z undo; Escape leaves the grid."),
  );
}
