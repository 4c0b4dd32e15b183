// What a whole-puzzle reveal or clear would do, asked before it is done. Loaded when first asked.
import { el } from "./dom.js";

/** What revealing or clearing the whole puzzle would do, in words: "Clears 23 of Ben's
 * letters and 4 of yours." */
export function puzzleConsequence(model, kind) {
  const letters = [...model.state.squares.values()].filter((square) => square.letter && square.verdict !== "revealed");
  if (kind === "reveal") {
    const { width, squares } = model.view.layout;
    const empty = squares.filter((square, index) => square.kind === "letter" && !model.letterAt({ row: Math.floor(index / width), col: index % width })).length;
    return `Reveals the answer in every square not already right${empty ? ` (${empty} still empty)` : ""}. The game then counts as solved with reveals, and revealed letters cannot be changed or undone.`;
  }
  const byAuthor = new Map();
  for (const square of letters) byAuthor.set(square.authorID, (byAuthor.get(square.authorID) ?? 0) + 1);
  if (!byAuthor.size) return "There are no letters to clear.";
  const parts = [...byAuthor.entries()]
    .sort((a, b) => (a[0] === model.view.me) - (b[0] === model.view.me) || b[1] - a[1])
    .map(([author, count]) => `${count} of ${author === model.view.me ? "yours" : `${model.nameOf(author)}'s letters`}`);
  const list = parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}` : parts[0];
  return `Clears ${list.replace(/^(\d+) of yours$/, "$1 of your letters")}. Undo brings your own clearing back.`;
}

/** A modal question before a whole-puzzle reveal or clear; the grid has the focus after. */
export function confirmPuzzle(view, kind) {
  const dialog = el(
    "dialog",
    { class: "confirm", "data-confirm": kind, "aria-labelledby": "confirm-title" },
    el("h2", { id: "confirm-title" }, kind === "reveal" ? "Reveal the whole puzzle?" : "Clear the whole puzzle?"),
    el("p", { "data-confirm-text": true }, puzzleConsequence(view.model, kind)),
    el(
      "div",
      { class: "buttons" },
      el("button", { type: "button", "data-confirm-no": true, onclick: () => dialog.close() }, "Keep playing"),
      el("button", { type: "button", class: "danger", "data-confirm-yes": true, onclick: () => {
        dialog.close();
        view.handlers.scoped(kind, "puzzle");
      } }, kind === "reveal" ? "Reveal puzzle" : "Clear puzzle"),
    ),
  );
  dialog.addEventListener("close", () => {
    dialog.remove();
    view.focusGrid();
  });
  document.body.append(dialog);
  dialog.showModal();
  dialog.querySelector("[data-confirm-no]").focus();
}
