// The pages before and around signing in: the first visit (and an invitation's), joining a game
// by its link, and linking another device. Loaded by app.js when one is first shown.

import { IDENTITY, api, identity } from "./api.js";
import { el, main, stylesheet } from "./dom.js";
import { navigate, showAgain } from "./nav.js";
import { limits } from "./limits.js";
import { route } from "./routes.js";

/** Names as a sentence: "Ana", "Ana and Ben", "Ana, Ben and 3 others". */
function namesInWords(names) {
  if (names.length <= 1) return names.join("");
  if (names.length > 3) return `${names.slice(0, 2).join(", ")} and ${names.length - 2} others`;
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** First visit: a name makes an account and this device; or a code links to an account. An
 * invitation link is checked first: a dead link says so before anyone makes an account. */
export async function welcome(path) {
  await stylesheet("pages.css");
  document.title = "Crossmate";
  const join = path.match(/^\/join\/([^/]+)$/);
  let invitation = null;
  if (join) {
    main.replaceChildren(el("p", { class: "loading" }, "Checking the invitation…"));
    try {
      invitation = await api(...route("previewInvitation", decodeURIComponent(join[1])));
    } catch (failure) {
      return cannotJoin(failure, "Start your own games");
    }
  }
  const joining = !!invitation;
  // Who may make an account here: a server for friends may take new players only by invitation.
  let signups = "open";
  try {
    signups = (await (await fetch("/v1")).json()).signups || "open";
  } catch {
    // Unknown: offer the form, and the server's refusal says the rest.
  }
  const error = el("p", { class: "error", role: "alert" });
  const name = el("input", {
    name: "displayName", id: "displayName", autocomplete: "nickname", maxlength: String(limits.displayNameLength), required: true,
    placeholder: joining ? "" : "Ana",
  });
  const start = el(
    "form",
    {
      class: "card",
      onsubmit: async (event) => {
        event.preventDefault();
        error.textContent = "";
        try {
          const body = { displayName: name.value.trim() };
          if (joining) body.invitation = decodeURIComponent(join[1]);
          remember(await api(...route("createAccount"), body));
          showAgain();
        } catch (failure) {
          error.textContent = failure.message;
        }
      },
    },
    joining
      ? el("h2", { "data-invitation": true }, `${invitation.invitedBy} invited you to ${invitation.title || "a crossword"}`)
      : el("h2", {}, "Solve crosswords together"),
    joining ? el("p", { class: "invited" }, `${namesInWords(invitation.players)} ${invitation.players.length === 1 ? "is" : "are"} solving it. Pick a name to join.`) : null,
    el("label", { for: "displayName" }, "Your name, as other players will see it"),
    name,
    el("button", { type: "submit", class: "primary" }, joining ? "Join the game" : "Start"),
    error,
  );
  const code = el("input", {
    name: "linkCode", id: "linkCode", autocomplete: "off", autocapitalize: "characters", spellcheck: "false", maxlength: "24",
    placeholder: "K7QM4-XPD2R", class: "link-code-field",
  });
  const linkError = el("p", { class: "error", role: "alert" });
  const link = el(
    "form",
    {
      class: "card quiet",
      onsubmit: async (event) => {
        event.preventDefault();
        linkError.textContent = "";
        try {
          remember(await api(...route("linkDevice"), { code: code.value.trim() }));
          showAgain();
        } catch (failure) {
          linkError.textContent = failure.message;
        }
      },
    },
    el("h3", {}, "Already play on another device?"),
    el("label", { for: "linkCode" }, "Enter the link code it shows under “Use on another device”"),
    code,
    el("button", { type: "submit" }, "Link this browser"),
    linkError,
  );
  // Without an invitation, a server that takes none says how to get in, instead of a form
  // it would refuse ("first": by invitation, but no one has an account yet, so the host makes
  // the first).
  const closedDoor = signups === "closed" || (signups === "invite" && !joining);
  const door = el(
    "div",
    { class: "card", "data-signups": signups },
    el("h2", {}, "Solve crosswords together"),
    el(
      "p",
      {},
      signups === "closed"
        ? "This server takes no new players. If you already play here, link this browser to your account below."
        : "This server takes new players by invitation. Ask a friend who plays here to send you a game’s invitation link, and open it; if you already play here, link this browser to your account below.",
    ),
  );
  main.replaceChildren(el("section", { class: "welcome" }, closedDoor ? door : start, link));
  // A link code's QR code opens this page with the code after "#link=" (a fragment, so it never
  // reaches the server): the field has it, and linking still takes a press of the button.
  const scanned = location.hash.match(/^#link=([0-9A-Za-z-]{1,24})$/);
  if (scanned) {
    history.replaceState(null, "", location.pathname);
    code.value = scanned[1];
    link.querySelector("button[type=submit]").focus();
    return;
  }
  if (closedDoor) code.focus();
  else name.focus();
}

export async function accept(token) {
  await stylesheet("pages.css");
  main.replaceChildren(el("p", { class: "loading" }, "Joining…"));
  try {
    const game = await api(...route("acceptInvitation", token), {});
    navigate(`/games/${encodeURIComponent(game.gameID)}`, true);
  } catch (failure) {
    cannotJoin(failure, "Go to your games");
  }
}

/** An invitation that cannot be used, and why (revoked, expired, unknown, removed…). */
function cannotJoin(failure, onward) {
  document.title = "Invitation · Crossmate";
  main.replaceChildren(
    el(
      "section",
      { class: "card" },
      el("h2", {}, "This invitation cannot be used"),
      el("p", { class: "error", role: "alert", "data-error": failure.code }, failure.message),
      el("a", { href: "/", "data-route": true, class: "button" }, onward),
    ),
  );
}

export async function linkPage() {
  await stylesheet("pages.css");
  document.title = "Use on another device · Crossmate";
  const shown = el("p", { class: "code", "data-link-code": true }, "…");
  const scan = el("figure", { class: "scan", "data-link-qr": true, hidden: true });
  main.replaceChildren(
    el(
      "section",
      { class: "card" },
      el("h2", {}, "Use Crossmate on another device"),
      el("p", {}, "On the other device, open this site and enter this code under “Already play on another device?”. It works once, for ten minutes; making another replaces it."),
      shown,
      scan,
      el("a", { href: "/", "data-route": true, class: "button" }, "Back to your games"),
    ),
  );
  try {
    const { code } = await api(...route("createLinkCode"), {});
    shown.textContent = code;
    // Or the other device's camera: a QR code of this site with the code, which fills it in.
    const { qrSvg } = await import("./qr.js");
    const picture = qrSvg(`${location.origin}/#link=${code}`, `QR code that opens Crossmate with the code ${code} filled in`);
    if (picture) {
      scan.replaceChildren(picture, el("figcaption", {}, "Or point the other device's camera here: it opens Crossmate with the code filled in."));
      scan.hidden = false;
    }
  } catch (failure) {
    shown.textContent = failure.message;
    shown.className = "error";
  }
}

/** Keeps a new session (an account made or a device linked) as this browser's identity. */
function remember(session) {
  const saved = {
    token: session.token,
    deviceID: session.deviceID,
    authorID: session.account.authorID,
    displayName: session.account.displayName,
  };
  localStorage.setItem(IDENTITY, JSON.stringify(saved));
  return saved;
}
