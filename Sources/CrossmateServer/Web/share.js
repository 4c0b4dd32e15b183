// Sharing a game: any player makes an invitation link (with an expiry or without) and copies
// it from a field; the owner sees and revokes every working link of the game, a player their
// own. Loaded the first time a player opens Share.

import { api } from "./api.js";
import { connection } from "./connection.js";
import { el, stylesheet } from "./dom.js";
import { route } from "./routes.js";

const LIFETIMES = [
  ["", "Until it is revoked"],
  [String(24 * 3600), "For a day"],
  [String(7 * 24 * 3600), "For a week"],
  [String(30 * 24 * 3600), "For 30 days"],
];

/** "in 6 days", "in 3 hours", "in 12 minutes": how long a link has left. */
function remaining(millis) {
  const minutes = Math.max(1, Math.round(millis / 60_000));
  if (minutes < 90) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} hours`;
  return `${Math.round(hours / 24)} days`;
}

/** The link this page made last, per game: reopening Share shows it again. */
const made = new Map();

/**
 * Opens the share dialog for `game` (its gameID and title); `done` runs when it closes (the
 * grid takes the keys back).
 */
export async function openShare(game, done) {
  await stylesheet("pages.css");
  const status = el("p", { class: "share-status", role: "status" });
  const field = el("input", {
    readonly: true, "data-invite-link": true, "aria-label": "Invitation link", id: "invite-link",
    onfocus: (event) => event.target.select(),
  });
  const copy = el("button", { type: "button", "data-copy-link": true, onclick: () => copyLink() }, "Copy");
  // A phone's own share sheet (messages, mail, chat apps), where the browser has one.
  const shareSheet = navigator.share
    ? el("button", { type: "button", "data-share-sheet": true, onclick: () => shareLink() }, "Send…")
    : null;
  const copyRow = el("div", { class: "copy", hidden: true }, field, copy, shareSheet);
  const lifetime = el("select", { id: "invite-lifetime", "data-invite-lifetime": true },
    ...LIFETIMES.map(([value, words]) => el("option", { value }, words)));
  const makeButton = el("button", { type: "button", class: "primary", "data-make-link": true, onclick: () => makeLink() }, "Make a link");
  const list = el("ul", { class: "links", "data-links": true });
  const dialog = el(
    "dialog",
    { class: "confirm share-dialog", "data-share-dialog": true, "aria-labelledby": "share-title" },
    el("h2", { id: "share-title" }, "Invite players"),
    el("p", {}, `Anyone with the link can join “${game.title}” and solve with you.`),
    copyRow,
    el("div", { class: "make" }, el("label", { for: "invite-lifetime" }, "A new link works"), lifetime, makeButton),
    status,
    el("h3", {}, "Working links"),
    list,
    el("div", { class: "buttons" }, el("button", { type: "button", "data-share-close": true, onclick: () => dialog.close() }, "Done")),
  );

  function show(link) {
    // On the server's public address when it has one (--public-url), else on this page's.
    field.value = link ? link.url ?? new URL(link.path, location.origin).href : "";
    copyRow.hidden = !link;
  }

  async function copyLink() {
    try {
      await navigator.clipboard.writeText(field.value);
      status.textContent = "Copied. Anyone with the link can join this game.";
    } catch {
      field.focus();
      status.textContent = "Copy the selected link (Ctrl+C, or long-press on a phone).";
    }
  }

  async function shareLink() {
    try {
      await navigator.share({ title: game.title, text: `Solve “${game.title}” with me on Crossmate`, url: field.value });
      status.textContent = "Sent. Anyone with the link can join this game.";
    } catch (failure) {
      // Closed without sending: nothing to say.
      if (failure.name !== "AbortError") status.textContent = "This device could not share the link: copy it instead.";
    }
  }

  async function makeLink() {
    makeButton.disabled = true;
    try {
      const seconds = lifetime.value ? Number(lifetime.value) : undefined;
      const link = await api(...route("invite", game.gameID), seconds ? { expiresInSeconds: seconds } : {});
      made.set(game.gameID, link);
      show(link);
      await copyLink();
      await refresh();
    } catch (failure) {
      status.textContent = failure.message;
    } finally {
      makeButton.disabled = false;
    }
  }

  async function revoke(link) {
    try {
      await api(...route("revokeLink", game.gameID, link.linkID));
      if (made.get(game.gameID)?.linkID === link.linkID) {
        made.delete(game.gameID);
        show(null);
      }
      status.textContent = "Revoked: that link no longer lets anyone join.";
      await refresh();
    } catch (failure) {
      status.textContent = failure.message;
    }
  }

  async function refresh() {
    const { links, maxLinks } = await api(...route("invitations", game.gameID));
    const now = connection.now();
    let mine = made.get(game.gameID)?.linkID;
    if (mine && !links.some((link) => link.linkID === mine)) {
      // Revoked elsewhere, or expired: the field no longer offers it.
      made.delete(game.gameID);
      show(null);
      mine = undefined;
    }
    list.replaceChildren(
      ...links.map((link) =>
        el(
          "li",
          { "data-link": link.linkID },
          el(
            "span",
            {},
            link.linkID === mine ? "This link" : `Made by ${link.createdByName}`,
            el("small", {}, link.expiresAt == null ? " · works until revoked" : ` · expires in ${remaining(link.expiresAt - now)}`),
          ),
          link.canRevoke
            ? el("button", { type: "button", "data-revoke": link.linkID, "aria-label": `Revoke ${link.linkID === mine ? "this link" : `the link made by ${link.createdByName}`}`, onclick: () => revoke(link) }, "Revoke")
            : null,
        ),
      ),
    );
    if (!links.length) list.append(el("li", { class: "none" }, "No working links."));
    makeButton.disabled = links.length >= maxLinks;
    if (links.length >= maxLinks) status.textContent = `A game has at most ${maxLinks} working links: revoke one to make another.`;
  }

  dialog.addEventListener("close", () => {
    dialog.remove();
    done();
  });
  document.body.append(dialog);
  dialog.showModal();
  const earlier = made.get(game.gameID);
  // A link is made when asked for, with the lifetime chosen first (making one at once made a
  // never-expiring link on every first Share). The link this page made is offered again.
  if (earlier) show(earlier);
  (earlier ? field : lifetime).focus();
  refresh().catch((failure) => (status.textContent = failure.message));
}
