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
  // The Players sheet invites too (on a phone that is where a player looks for it).
  view.inviteButton = el("button", { type: "button", class: "primary invite", "data-invite-button": true, onclick: () => {
    closeSheet(view);
    view.share();
  } }, "Invite players");
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
    el("div", { class: "statusline" }, view.timerBox, view.statusBox, view.statusAnnouncer, view.clueAnnouncer, view.playersButton),
    view.notice,
    view.catchUpBox,
    view.banner,
    el(
      "div",
      { class: "board" },
      view.play,
      sheet("clues", "Clues", lists),
      sheet("chat", "Chat", view.chatSlot),
      sheet("players", "Players", view.roster, view.inviteButton),
      sheet("info", "This puzzle", el("p", { class: "full-title", "data-full-title": true }, title), ...infoParts),
    ),
    view.dock,
  );
  document.body.classList.add("touch-game");
  view.stops.push(() => document.body.classList.remove("touch-game", "sheet-open"));
  const observer = new ResizeObserver(() => fitGrid(view));
  observer.observe(view.play);
  view.stops.push(() => observer.disconnect());
  return section;
}

/** The clue bar's least height; a long clue may take what the grid leaves below it. */
const clueBarHeight = 56;

/** The squares' size: the largest whole number of CSS pixels that fits the grid in its place,
 * which is then put on a whole pixel too (a half-pixel offset blurs every line). The room the
 * grid leaves below it is the clue bar's to grow into (a long clue shows whole): the grid is
 * fitted to its place as if the bar were at its least, so a clue never moves the grid. */
export function fitGrid(view) {
  const { width: cols, height: rows } = view.view.layout;
  // Under a sheet the keyboard is away and the grid out of sight: fitted when it closes.
  if (view.openSheetName) return;
  const box = view.play.getBoundingClientRect();
  if (!box.width || !box.height) return;
  const grown = Math.max(0, view.clueBar.offsetHeight - clueBarHeight);
  const height = box.height + grown;
  const border = 2;
  const gap = 1;
  const size = Math.max(8, Math.floor(Math.min((box.width - 2 * border - (cols - 1) * gap) / cols, (height - 2 * border - (rows - 1) * gap) / rows)));
  const width = cols * size + (cols - 1) * gap + 2 * border;
  const room = Math.max(0, Math.floor(height - (rows * size + (rows - 1) * gap + 2 * border)));
  view.grid.style.setProperty("--sq", `${size}px`);
  if (view.clueRoom !== room) {
    view.clueRoom = room;
    view.clueBar.style.maxHeight = `${clueBarHeight + Math.min(room, 120)}px`;
    fitClue(view);
  }
  const wrap = view.grid.parentElement;
  wrap.style.marginLeft = `${Math.max(0, Math.floor((box.width - width) / 2))}px`;
  wrap.style.marginTop = `${Math.ceil(box.top) - box.top}px`;
}

/** The clue bar's type, shrunk a step at a time until the whole clue fits the bar. */
export function fitClue(view) {
  const bar = view.clueBar;
  for (const size of [1, 0.94, 0.88, 0.82, 0.76, 0.7]) {
    bar.style.fontSize = `${size}rem`;
    if (bar.scrollHeight <= bar.clientHeight + 1) return;
  }
}

/** Opens one sheet over the grid (closing any other). */
export function openSheet(view, name) {
  view.toggleMore?.(false);
  for (const [other, node] of view.sheets) node.hidden = other !== name;
  view.openSheetName = name;
  // The sheet covers the grid, so the on-screen keyboard steps aside: a key would type a
  // letter the player cannot see.
  document.body.classList.add("sheet-open");
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
  document.body.classList.remove("sheet-open");
  fitGrid(view);
  view.focusGrid();
}
