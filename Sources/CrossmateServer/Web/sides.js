// What the game page needs after its grid: the clue lists, the players, Download and Nudge,
// loaded with the chat once the grid is drawn (a phone shows the lists and the players in
// sheets; what it needs to solve comes first). Each function takes the GameView (gameview.js)
// it draws for.

import { api } from "./api.js";
import { connection } from "./connection.js";
import { el, rebuildIf, setAttribute, setStyle, stylesheet, toast } from "./dom.js";
import { clueID } from "./keys.js";
import { limits } from "./limits.js";
import { route } from "./routes.js";

/** Fills the view's lists (kept empty in the page until now) with a list a direction. */
export function buildLists(view) {
  // Each clue's list item, kept with its clue: a redraw walks these, not the document.
  const clueList = (direction) =>
    el(
      "section",
      { class: "clues" },
      el("h2", {}, direction === "across" ? "Across" : "Down"),
      el(
        "ol",
        {},
        ...view.model.board[direction].map((clue) => {
          // Each clue is a button that says its direction ("17 Across") and, when it is the
          // cursor's, that it is the current one.
          const item = el(
            "li",
            { dataset: { clue: clueID(clue.number, direction) }, onclick: () => jumpTo(view, clue.number, direction) },
            el(
              "button",
              { type: "button", class: "clue", tabindex: "-1" },
              el("b", {}, clue.number),
              el("span", { class: "sr-only" }, ` ${direction === "across" ? "Across" : "Down"}:`),
              " ",
              clue.text,
            ),
          );
          view.clueItems.set(clueID(clue.number, direction), { item, clue });
          return item;
        }),
      ),
    );
  view.acrossList = clueList("across");
  view.downList = clueList("down");
  // The clue lists from the keyboard: arrows move between clues (and lists), Enter or Space
  // (the button's own click) goes to the clue in the grid, Escape goes back to the grid.
  const lists = view.lists;
  lists.replaceChildren(view.acrossList, view.downList);
  lists.addEventListener("keydown", (event) => {
    const item = event.target.closest?.(".clues li button");
    if (!item) return;
    const all = [...lists.querySelectorAll(".clues li button")];
    const index = all.indexOf(item);
    const sideways = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
    let next = null;
    if (event.key === "ArrowDown") next = all[index + 1];
    else if (event.key === "ArrowUp") next = all[index - 1];
    else if (event.key === "Home") next = all[0];
    else if (event.key === "End") next = all.at(-1);
    else if (sideways) next = (sideways > 0 ? view.downList : view.acrossList).querySelector("li button");
    else if (event.key === "Escape") {
      event.preventDefault();
      return view.focusGrid();
    } else return;
    event.preventDefault();
    if (next) {
      for (const other of all) other.tabIndex = -1;
      next.tabIndex = 0;
      next.focus();
    }
  });
}

/** Goes to a clue from its list, and the grid has the keys. */
function jumpTo(view, number, direction) {
  view.handlers.press({ jump: number, direction });
  view.focusGrid();
}

/** The lists brought up to date: the current and crossing clues, the filled ones, the flags. */
export function renderLists(view, word) {
  const { model } = view;
  const cross = model.board.clue(model.cursor, model.cursor.direction === "across" ? "down" : "across");
  const currentID = word ? clueID(word.number, word.direction) : null;
  const crossID = cross ? clueID(cross.number, cross.direction) : null;
  const flagOf = new Map();
  for (const flag of model.state.flags) {
    const id = clueID(flag.number, flag.direction);
    if (!flagOf.has(id)) flagOf.set(id, flag);
  }
  for (const [id, { item, clue }] of view.clueItems) {
    const current = id === currentID;
    if (current && !item.classList.contains("current")) {
      // Scroll the list only, never the page (on a phone the grid must stay in view). Measured
      // in the next frame, which lays the page out anyway: here it would force a layout of
      // its own in the key's handler.
      requestAnimationFrame(() => {
        if (!item.classList.contains("current")) return;
        const box = item.closest(".clues");
        const top = item.offsetTop - box.offsetTop;
        if (top < box.scrollTop || top + item.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = top - box.clientHeight / 3;
      });
    }
    item.classList.toggle("current", current);
    const button = item.firstChild;
    if (current || button.hasAttribute("aria-current")) setAttribute(button, "aria-current", String(current));
    if (current && document.activeElement?.closest?.(".lists") == null) {
      // Tab reaches the lists at the current clue (one stop; arrows go on from there).
      // (One item at a time is the stop: when it is this one, the others are not.)
      if (button.tabIndex !== 0) {
        for (const other of view.main.querySelectorAll(".clues li button[tabindex='0']")) other.tabIndex = -1;
        button.tabIndex = 0;
      }
    }
    item.classList.toggle("crossing", id === crossID);
    item.classList.toggle("done", clue.cells.every((cell) => model.letterAt(cell) !== ""));
    // A flagged clue: ⚑ and who flagged it, in their colour.
    const flag = flagOf.get(id);
    const note = flag ? `⚑ ${view.model.nameOf(flag.authorID)}` : "";
    if ((item.dataset.flagged ?? "") !== note) {
      button.querySelector(".flagnote")?.remove();
      if (flag) button.append(el("span", { class: "flagnote", style: `color:${view.model.colorOf(flag.authorID)}` }, ` ${note}`));
      if (flag) item.dataset.flagged = note;
      else delete item.dataset.flagged;
    }
    item.classList.toggle("flagged", !!flag);
    setStyle(item, "--flag", flag ? view.model.colorOf(flag.authorID) : "transparent");
  }
}

/** The players: who is here, Follow, and the owner's Remove. */
export function renderPlayers(view) {
  const { view: game, following } = view.model;
  const { phone } = view;
  const owner = game.players.find((player) => player.role === "owner")?.authorID === game.me;
  // Rebuilt only when what it shows changed (a roster per letter typed kept the page busy):
  // the fields it shows, in one order (the server's JSON may name them in any order).
  // Who is here is known only while the socket is live: reconnecting, nobody is shown here.
  const live = connection.live;
  const here = (player) => live && player.here > 0;
  const shown = game.players.map((player) => [player.authorID, player.displayName, player.role, player.removed, player.color, player.symbol, here(player)]);
  const signature = JSON.stringify([shown, game.me, following, owner]);
  if (phone) {
    const faces = game.players.filter((player) => !player.removed);
    rebuildIf(phone.rosterFaces, signature, () =>
      faces.map((player) => el("span", { class: `avatar${here(player) ? " here" : ""}`, style: `background:${player.color}` }, player.symbol ?? "")),
    );
    const present = faces.filter((player) => here(player) && player.authorID !== game.me).length;
    setAttribute(phone.playersButton, "aria-label", `players: ${faces.length}${present ? `, ${present} here now` : ""}`);
  }
  rebuildIf(view.roster, signature, () =>
    game.players.filter((player) => !player.removed || player.authorID === game.me).map((player) =>
      el(
        "li",
        { dataset: { player: player.authorID } },
        el("span", { class: "avatar", style: `background:${player.color}`, "aria-hidden": "true" }, player.symbol ?? ""),
        player.authorID === game.me ? `${player.displayName} (you)` : player.displayName,
        here(player) && player.authorID !== game.me ? el("small", { class: "here", title: "has the game open now" }, " · here") : null,
        player.role === "owner" ? el("small", {}, " owner") : null,
        player.removed ? el("small", {}, " removed") : null,
        here(player) && player.authorID !== game.me && !player.removed
          ? el(
              "button",
              {
                type: "button", class: "small", "data-follow": player.authorID, "aria-pressed": String(following === player.authorID),
                title: following === player.authorID ? "Stop following" : `Your cursor goes where ${player.displayName}'s goes, until you type or move`,
                onclick: () => view.handlers.follow(player.authorID),
              },
              following === player.authorID ? "Following" : "Follow",
            )
          : null,
        owner && player.authorID !== game.me && !player.removed
          ? el("button", { type: "button", class: "small", "data-remove": player.authorID, onclick: () => remove(view, player) }, "Remove")
          : null,
      ),
    ),
  );
}

/** The owner takes a player out of the game (their letters stay). */
async function remove(view, player) {
  if (!confirm(`Remove ${player.displayName} from this game? Their letters stay; they can no longer change the grid.`)) return;
  try {
    await api(...route("removePlayer", view.model.gameID, player.authorID));
    toast(`${player.displayName} was removed.`);
  } catch (failure) {
    toast(failure.message, "error");
  }
}

/** Download: the game as a file for another app, with the letters as they stand (.xd keeps none).
 * Added after the tools that a finished game turns off were listed: a finished game downloads. */
export function downloadMenu(view) {
  const formats = [["puz", "Across Lite (.puz)"], ["ipuz", ".ipuz"], ["jpz", ".jpz"], ["xd", ".xd (the puzzle only)"]];
  return el(
    "details",
    { class: "menu", "data-download": true },
    el("summary", {}, "Download"),
    el(
      "div",
      { class: "items" },
      ...formats.map(([format, label]) =>
        el("button", { type: "button", "data-download-format": format, onclick: async (event) => {
          event.target.closest("details").open = false;
          const path = `${route("exportGame", view.model.gameID)[1]}?format=${format}${format === "xd" ? "" : "&fill=1"}`;
          (await import("./download.js")).download(path, `crossword.${format}`);
        } }, label),
      ),
    ),
  );
}

/** Nudge: asks the others to come and help, with a short message or none. */
export async function nudge(view) {
  await stylesheet("pages.css");
  const field = el("input", { id: "nudge-message", "data-nudge-message": true, maxlength: String(limits.nudgeMessageBytes), autocomplete: "off", enterkeyhint: "send", placeholder: "Come and help with 17 Across?" });
  const error = el("p", { class: "error", role: "alert" });
  const send = el("button", { type: "submit", class: "primary", "data-nudge-send": true }, "Nudge");
  const form = el(
    "form",
    { method: "dialog" },
    el("h2", { id: "nudge-title" }, "Nudge the others"),
    el("p", {}, "Everyone else in this game hears it, on whatever page they have open, or as a notification."),
    el("label", { for: "nudge-message" }, "A short message (or none)"),
    field,
    error,
    el("div", { class: "buttons" }, el("button", { type: "button", "data-nudge-cancel": true, onclick: () => dialog.close() }, "Cancel"), send),
  );
  const dialog = el("dialog", { class: "confirm", "data-nudge-dialog": true, "aria-labelledby": "nudge-title" }, form);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    send.disabled = true;
    error.textContent = "";
    try {
      await api(...route("nudge", view.model.gameID), { message: field.value });
      dialog.close();
      toast("Nudged.");
    } catch (failure) {
      error.textContent = failure.message;
    } finally {
      send.disabled = false;
    }
  });
  dialog.addEventListener("close", () => {
    dialog.remove();
    view.focusGrid();
  });
  document.body.append(dialog);
  dialog.showModal();
  field.focus();
}
