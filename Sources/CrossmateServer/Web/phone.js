// The solving page on a touch screen: one fixed screen, as a crossword app is. The toolbar, the
// status line, the grid, the clue bar and the keyboard are always in sight together and the
// page never scrolls; the clue lists, the chat, the players and the puzzle's notes open as
// sheets over the grid and close back to it. The grid's squares are whole CSS pixels, so every
// line between them is drawn at any device pixel ratio.

import { el } from "./dom.js";
import { clueID } from "./keys.js";

/** Builds the page's section for `view` (a GameView) from the parts it built. */
export function buildPhoneGame(view, { tools, lists, infoParts }) {
  const v = view.view;
  const title = v.layout.title || "Untitled";
  view.sheets = new Map();
  const sheet = (name, heading, ...content) => {
    const node = el(
      "section",
      { class: "sheet", "data-sheet": name, hidden: true, role: "dialog", "aria-label": heading },
      el(
        "header",
        { class: "sheet-head" },
        el("h2", {}, heading),
        el("button", { type: "button", class: "sheet-close", "data-sheet-close": true, "aria-label": `close ${heading.toLowerCase()}`, onclick: () => closeSheet(view) }, "✕"),
      ),
      el("div", { class: "sheet-body" }, ...content),
    );
    view.sheets.set(name, node);
    return node;
  };
  // A clue tapped in the list is where the cursor goes: the sheet closes back to the grid.
  lists.addEventListener("click", (event) => event.target.closest(".clues li") && closeSheet(view));
  view.rosterFaces = el("span", { class: "faces", "aria-hidden": "true" });
  view.playersButton = el(
    "button",
    { type: "button", class: "players-button", "data-players-button": true, "aria-label": "players", onclick: () => openSheet(view, "players") },
    view.rosterFaces,
  );
  view.play = el("div", { class: "play" }, el("div", { class: "gridwrap" }, view.grid, view.rebusEntry, view.input, view.pausedCover));
  const section = el(
    "section",
    { class: "game touch" },
    el(
      "div",
      { class: "toolbar" },
      el("a", { href: "/", "data-route": true, class: "back", title: "Your games", "aria-label": "your games" }, "←"),
      el("h1", {}, el("button", { type: "button", class: "title-button", "data-title": true, title: "About this puzzle", onclick: () => openSheet(view, "info") }, title)),
      tools,
    ),
    el("div", { class: "statusline" }, view.timerBox, view.statusBox, view.statusAnnouncer, view.playersButton),
    view.notice,
    view.catchUpBox,
    view.banner,
    el(
      "div",
      { class: "board" },
      view.play,
      sheet("clues", "Clues", lists),
      sheet("chat", "Chat", view.chatSlot),
      sheet("players", "Players", view.roster),
      sheet("info", "This puzzle", el("p", { class: "full-title", "data-full-title": true }, title), ...infoParts),
    ),
    view.dock,
  );
  document.body.classList.add("touch-game");
  view.stops.push(() => document.body.classList.remove("touch-game"));
  const observer = new ResizeObserver(() => fitGrid(view));
  observer.observe(view.play);
  view.stops.push(() => observer.disconnect());
  return section;
}

/** The squares' size: the largest whole number of CSS pixels that fits the grid in its place,
 * which is then put on a whole pixel too (a half-pixel offset blurs every line). */
export function fitGrid(view) {
  const { width: cols, height: rows } = view.view.layout;
  const box = view.play.getBoundingClientRect();
  if (!box.width || !box.height) return;
  const border = 2;
  const gap = 1;
  const size = Math.max(8, Math.floor(Math.min((box.width - 2 * border - (cols - 1) * gap) / cols, (box.height - 2 * border - (rows - 1) * gap) / rows)));
  const width = cols * size + (cols - 1) * gap + 2 * border;
  view.grid.style.setProperty("--sq", `${size}px`);
  const wrap = view.grid.parentElement;
  wrap.style.marginLeft = `${Math.max(0, Math.floor((box.width - width) / 2))}px`;
  wrap.style.marginTop = `${Math.ceil(box.top) - box.top}px`;
}

/** Opens one sheet over the grid (closing any other). */
export function openSheet(view, name) {
  view.toggleMore?.(false);
  for (const [other, node] of view.sheets) node.hidden = other !== name;
  view.openSheetName = name;
  const node = view.sheets.get(name);
  node.querySelector(".sheet-body").scrollTop = 0;
  if (name === "clues") showCurrentClue(view, node.querySelector(".sheet-body"));
  if (name !== "chat") node.querySelector("[data-sheet-close]").focus({ preventScroll: true });
}

/** Scrolls the clue sheet (only the sheet, never the page) to the clue the cursor is in. */
function showCurrentClue(view, body) {
  const word = view.board.clue(view.cursor, view.cursor.direction);
  const item = word && view.clueItems.get(clueID(word.number, word.direction))?.item;
  if (!item) return;
  body.scrollTop += item.getBoundingClientRect().top - body.getBoundingClientRect().top - body.clientHeight / 3;
}

/** Closes the open sheet: back to the grid, which has the keys again. */
export function closeSheet(view) {
  if (!view.openSheetName) return;
  view.sheets.get(view.openSheetName).hidden = true;
  view.openSheetName = null;
  view.input.focus({ preventScroll: true });
}
