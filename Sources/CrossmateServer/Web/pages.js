// The pages other than solving: the first visit (and an invitation's), joining, linking
// another device, the games list and friends. Loaded by app.js when one is first shown.

import { IDENTITY, api, forget, identity } from "./api.js";
import { connection } from "./connection.js";
import { el, main, stylesheet, toast } from "./dom.js";
import { navigate, showAgain, signedOut } from "./nav.js";
import { limits } from "./limits.js";
import { forgetAll, unsentCount } from "./queue.js";
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

/** When a game last changed, as a list shows it: "today 14:02", "yesterday", "Mon", "3 Nov". */
function when(millis) {
  const date = new Date(millis);
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  const days = Math.ceil((midnight - date) / 86_400_000);
  if (days <= 0) return `today ${date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`;
  if (days === 1) return "yesterday";
  if (days < 7) return date.toLocaleDateString([], { weekday: "short" });
  const year = date.getFullYear() === midnight.getFullYear() ? undefined : "numeric";
  return date.toLocaleDateString([], { day: "numeric", month: "short", year });
}

/** A small picture of a game's grid from the server's summary. */
function miniGrid(summary) {
  const rows = (summary.picture ?? "").split("\n");
  const grid = el("div", { class: "mini", "aria-hidden": "true", style: `--cols:${summary.width}` });
  for (const row of rows) for (const c of row) grid.append(el("i", { class: { "#": "b", x: "f", r: "f", "~": "v" }[c] ?? "" }));
  return grid;
}

export async function gamesPage() {
  await stylesheet("pages.css");
  document.title = "Your games · Crossmate";
  // The next puzzle together (from a finished game): the game whose players come along.
  const together = new URLSearchParams(location.search).get("with");
  const along = (body) => (together ? { ...body, with: together } : body);
  // Not a live region: a poke redraws it, and a screen reader should not read it all again.
  const list = el("ul", { class: "games", "aria-label": "your games" });
  const problem = el("p", { class: "error", role: "alert" });
  const bundled = el("div", { class: "bundled" });
  const file = el("input", { type: "file", name: "puzzleFile", id: "puzzleFile", accept: ".puz,.ipuz,.jpz,.xd" });
  const key = el("input", { name: "unlockKey", id: "unlockKey", inputmode: "numeric", pattern: "[0-9]{4}", maxlength: "4", placeholder: "1234" });
  const uploadError = el("p", { class: "error", role: "alert", "data-upload-error": true });
  const upload = el(
    "form",
    {
      class: "upload",
      onsubmit: async (event) => {
        event.preventDefault();
        uploadError.textContent = "";
        const chosen = file.files[0];
        if (!chosen) return (uploadError.textContent = "Choose a .puz, .ipuz, .jpz or .xd file first.");
        try {
          const body = along({ fileName: chosen.name, fileBase64: await base64(chosen) });
          if (key.value.trim()) body.unlockKey = Number(key.value.trim());
          const game = await api(...route("createGame"), body);
          navigate(`/games/${encodeURIComponent(game.gameID)}`);
        } catch (failure) {
          uploadError.textContent = failure.message;
        }
      },
    },
    el("label", { for: "puzzleFile" }, "Upload a puzzle file (or drop one anywhere on this page)"),
    file,
    el("label", { for: "unlockKey" }, "Key, for a locked .puz (optional)"),
    key,
    el("button", { type: "submit" }, "Start this puzzle"),
    uploadError,
  );
  // A puzzle file dropped anywhere on the page starts a game, as if chosen and sent.
  const page = el("section", { class: "page", "data-drop": true });
  const dragging = (on) => (event) => {
    if (![...(event.dataTransfer?.types ?? [])].includes("Files")) return;
    event.preventDefault();
    page.classList.toggle("dropping", on);
  };
  page.addEventListener("dragenter", dragging(true));
  page.addEventListener("dragover", dragging(true));
  page.addEventListener("dragleave", (event) => {
    if (!page.contains(event.relatedTarget)) page.classList.remove("dropping");
  });
  page.addEventListener("drop", (event) => {
    page.classList.remove("dropping");
    const dropped = event.dataTransfer?.files;
    if (!dropped?.length) return;
    event.preventDefault();
    file.files = dropped;
    upload.requestSubmit();
    upload.scrollIntoView({ block: "nearest" });
  });
  main.replaceChildren(
    el(
      page,
      {},
      el(
        "div",
        { class: "heading" },
        el("h1", {}, "Your games"),
        el(
          "span",
          { class: "links" },
          el("a", { href: "/friends", "data-route": true }, "Friends"), " · ",
          el("a", { href: "/stats", "data-route": true }, "Stats"), " · ",
          el("a", { href: "/link", "data-route": true }, "Use on another device"), " · ",
          el("button", { type: "button", class: "link", "data-settings": true, onclick: async () => (await import("./settingsdialog.js")).openSettings() }, "Settings"), " · ",
          el("button", { type: "button", class: "link", "data-download-all": true, title: "your latest games as .ipuz files, with your letters, in one zip",
            onclick: async () => (await import("./download.js")).download(`${route("exportAll")[1]}?format=ipuz&fill=1`, "crossmate-games.zip") }, "Download all"), " · ",
          el("button", { type: "button", class: "link", "data-sign-out": true, onclick: () => signOut() }, "Sign out"),
        ),
      ),
      list,
      problem,
      el("h2", { id: "start" }, together ? "The next puzzle together" : "Start a new game"),
      together ? el("p", { class: "notice", "data-together": together }, "Everyone still playing that game joins the one you start here, and those looking at it go straight in.") : null,
      bundled,
      upload,
    ),
  );

  const refresh = async () => {
    try {
      const { games, unreadCount } = await api(...route("games"));
      problem.textContent = "";
      document.title = unreadCount ? `(${unreadCount}) Your games · Crossmate` : "Your games · Crossmate";
      import("./push.js").then((push) => push.listed(unreadCount)).catch(() => {});
      if (!games.length) {
        list.replaceChildren(el("li", { class: "empty" }, "No games yet. Start one below, or open an invitation link a friend sent you."));
      } else {
        // Games in progress first, finished ones apart below them; in each, the latest news first.
        const item = (game) => {
            // A solve with revealed squares says so, never like a clean one.
            const revealed = [...(game.picture ?? "")].filter((c) => c === "r").length;
            const solved = revealed ? `Solved, ${revealed} ${revealed === 1 ? "square" : "squares"} revealed` : "Solved";
            const state = game.completion
              ? game.completion.kind === "solved" ? solved : "Finished"
              : game.readOnly ? "Read-only" : `${game.filled} of ${game.total} squares`;
            return el(
              "li",
              { "data-game": game.gameID },
              el(
                "a",
                { href: `/games/${encodeURIComponent(game.gameID)}`, "data-route": true, class: "game" },
                miniGrid(game),
                el(
                  "span",
                  { class: "title" },
                  game.title || "Untitled",
                  game.unread ? el("b", { class: "unread", "data-unread": true, title: "another player moved since you last looked" }, "new") : null,
                  game.unreadMessages
                    ? el("b", { class: "unread messages", "data-unread-messages": game.unreadMessages, title: "messages since you last looked" }, `✉ ${game.unreadMessages}`)
                    : null,
                ),
                el(
                  "span",
                  { class: `state ${game.completion ? (revealed ? "done helped" : "done") : game.readOnly ? "readonly" : ""}` },
                  state,
                  game.lastActivity ? [" · ", el("time", { datetime: new Date(game.lastActivity).toISOString(), "data-active": game.lastActivity }, when(game.lastActivity))] : null,
                ),
                el("span", { class: "role" }, (game.players ?? []).join(", ") || (game.role === "owner" ? "You started it" : "Shared with you")),
              ),
              ...(game.nudges ?? []).slice(0, 2).map((nudge) =>
                el("p", { class: "nudge", "data-nudge": nudge.nudgeID }, `${nudge.fromName} nudged you`, nudge.message ? `: “${nudge.message}”` : ""),
              ),
            );
        };
        const latest = (a, b) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0);
        const playing = games.filter((game) => !game.completion).sort(latest);
        const finished = games.filter((game) => game.completion).sort(latest);
        list.replaceChildren(
          ...playing.map(item),
          ...(finished.length ? [el("li", { class: "section", "data-section": "finished", role: "presentation" }, el("h2", {}, "Finished"))] : []),
          ...finished.map(item),
        );
      }
      connection.subscribe(games.map((game) => game.gameID).slice(0, 200));
    } catch (failure) {
      if (failure.status === 401) return signedOut();
      problem.textContent = failure.message;
    }
  };
  await refresh();
  if (together) document.getElementById("start")?.scrollIntoView({ block: "start" });
  try {
    const { puzzles } = await api(...route("puzzles"));
    bundled.replaceChildren(
      ...puzzles.map((puzzle) =>
        el(
          "button",
          {
            type: "button", class: "puzzle", "data-bundled": puzzle.name,
            onclick: async () => {
              try {
                const game = await api(...route("createGame"), along({ bundled: puzzle.name }));
                navigate(`/games/${encodeURIComponent(game.gameID)}`);
              } catch (failure) {
                toast(failure.message, "error");
              }
            },
          },
          el("strong", {}, puzzle.title),
          el("span", {}, `${puzzle.width}×${puzzle.height}`),
        ),
      ),
    );
  } catch (failure) {
    bundled.textContent = failure.message;
  }
  // Live: a poke for one of these games or a change to the account's list redraws it.
  let pending = null;
  const stop = connection.listen((message) => {
    if (message.type === "poke" || message.type === "feed" || (message.type === "state" && message.state === "live")) {
      clearTimeout(pending);
      pending = setTimeout(refresh, 150);
    }
  });
  return () => {
    stop();
    clearTimeout(pending);
  };
}

/** Friends: everyone you have played with, their colours (pin one, or let it be), blocking. */
export async function friendsPage() {
  await stylesheet("pages.css");
  document.title = "Friends · Crossmate";
  const list = el("ul", { class: "friends" });
  const problem = el("p", { class: "error", role: "alert" });
  const mine = el("select", { id: "preferredColor", name: "preferredColor" });
  const nameField = el("input", { id: "displayNameChange", name: "newDisplayName", maxlength: String(limits.displayNameLength), value: identity()?.displayName ?? "" });
  main.replaceChildren(
    el(
      "section",
      { class: "page" },
      el("div", { class: "heading" }, el("h1", {}, "Friends"), el("a", { href: "/", "data-route": true }, "Your games")),
      el(
        "form",
        {
          class: "mine",
          onsubmit: async (event) => {
            event.preventDefault();
            try {
              const answer = await api(...route("rename"), { displayName: nameField.value });
              const me = identity();
              localStorage.setItem("crossmate.identity", JSON.stringify({ ...me, displayName: answer.account.displayName }));
              document.getElementById("who").textContent = answer.account.displayName;
              nameField.value = answer.account.displayName;
              toast("Your name is changed in every game.");
            } catch (failure) {
              problem.textContent = failure.message;
            }
          },
        },
        el("label", { for: "displayNameChange" }, "Your name "),
        nameField,
        el("button", { type: "submit" }, "Rename"),
      ),
      el("p", { class: "mine" }, el("label", { for: "preferredColor" }, "Your colour "), mine),
      list,
      problem,
    ),
  );
  const palette = ["brown", "orange", "olive", "green", "teal", "blue", "indigo", "purple", "magenta"];
  const choices = (selected, automatic) => [
    el("option", { value: "", selected: selected === null || selected === undefined }, automatic),
    ...palette.map((name, index) => el("option", { value: String(index), selected: selected === index }, name)),
  ];
  const draw = ({ friends, preferredColor }) => {
    mine.replaceChildren(...choices(preferredColor, "automatic"));
    mine.onchange = () => save(...route("preferences"), { color: mine.value === "" ? null : Number(mine.value) });
    if (!friends.length) {
      list.replaceChildren(el("li", { class: "empty" }, "Nobody yet: the people you play with appear here."));
      return;
    }
    list.replaceChildren(
      ...friends.map((friend) => {
        const pin = el("select", { "aria-label": `colour for ${friend.displayName}`, "data-pin": friend.authorID }, ...choices(friend.pinned, "automatic"));
        pin.onchange = () =>
          save(...route("decide"), pin.value === ""
            ? { kind: "color", key: friend.authorID, deleted: true, writtenAt: Math.round(connection.now()) }
            : { kind: "color", key: friend.authorID, value: pin.value, writtenAt: Math.round(connection.now()) });
        const block = el("button", { type: "button", class: "small", "data-block": friend.authorID }, friend.blocked ? "Unblock" : "Block");
        block.onclick = () =>
          save(...route("decide"), { kind: "block", key: friend.authorID, deleted: friend.blocked, writtenAt: Math.round(connection.now()) });
        return el(
          "li",
          { "data-friend": friend.authorID, class: friend.blocked ? "blocked" : "" },
          el("span", { class: "avatar", style: `background:${friend.color}`, "aria-hidden": "true" }, friend.symbol),
          el("span", { class: "name" }, friend.displayName, friend.blocked ? el("small", {}, " blocked: their nudges and invitations are hidden") : null),
          el(
            "span",
            { class: "meta", "data-friend-meta": friend.authorID },
            `${friend.gamesTogether} ${friend.gamesTogether === 1 ? "game" : "games"} together, last ${new Date(friend.lastPlayed).toLocaleDateString()}`,
            together.has(friend.authorID) ? `; ${together.get(friend.authorID)}` : "",
          ),
          pin,
          block,
        );
      }),
    );
  };
  const save = async (method, path, body) => {
    try {
      draw((last = await api(method, path, body)));
      problem.textContent = "";
    } catch (failure) {
      problem.textContent = failure.message;
    }
  };
  // Each friend's solves with this account, from the stats (the server reads finished games).
  const together = new Map();
  const readTogether = async () => {
    try {
      const { stats } = await (await import("./stats.js")).loadStats();
      const { duration } = await import("./stats.js");
      for (const friend of stats.together) {
        const streak = friend.currentStreak ? `, a ${friend.currentStreak}-day streak` : "";
        together.set(friend.authorID, `${friend.solved} solved, median ${duration(friend.medianSeconds)}${streak}`);
      }
    } catch {
      // The rows show without it (the server could not be reached).
    }
  };
  let last = null;
  const refresh = async () => {
    try {
      draw((last = await api(...route("friends"))));
    } catch (failure) {
      problem.textContent = failure.message;
    }
  };
  await refresh();
  readTogether().then(() => last && together.size && draw(last));
  // A pin or block made on another of your devices shows here too.
  return connection.listen((message) => {
    if (message.type === "feed") refresh();
  });
}

/** Signing this browser out: asked first (saying what would be lost), then its device is
 * revoked on the server, its push subscription goes, and what it keeps here is forgotten. */
async function signOut() {
  const unsent = await unsentCount().catch(() => 0);
  const me = identity();
  const dialog = el(
    "dialog",
    { class: "confirm", "data-sign-out-dialog": true, "aria-labelledby": "sign-out-title" },
    el("h2", { id: "sign-out-title" }, "Sign out of this browser?"),
    el(
      "p",
      {},
      "Your games stay with your account. To use it here again, link this browser from another of your devices (Use on another device).",
    ),
    unsent
      ? el("p", { class: "notice", "data-unsent": unsent }, `${unsent} ${unsent === 1 ? "change has" : "changes have"} not reached the server yet and would be lost. Connect first to keep ${unsent === 1 ? "it" : "them"}.`)
      : null,
    el("p", { class: "error", role: "alert" }),
    el(
      "div",
      { class: "buttons" },
      el("button", { type: "button", "data-sign-out-no": true, onclick: () => dialog.close() }, "Stay signed in"),
      el("button", { type: "button", class: "danger", "data-sign-out-yes": true, onclick: async (event) => {
        event.target.disabled = true;
        connection.stop();
        try {
          await import("./push.js").then((push) => push.turnPushOff()).catch(() => {});
          await api(...route("revokeDevice", me.deviceID));
        } catch (failure) {
          // Offline, the server never hears of it: the token would stay valid there.
          if (failure.status !== 401) {
            dialog.querySelector(".error").textContent = `Not signed out: ${failure.message}`;
            event.target.disabled = false;
            connection.start();
            return;
          }
        }
        await forgetAll().catch(() => {});
        forget();
        dialog.close();
        toast("Signed out of this browser.");
        navigate("/", true);
      } }, "Sign out"),
    ),
  );
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  dialog.querySelector("[data-sign-out-no]").focus();
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

/** Reads a File as base64 for an upload. */
function base64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",")[1] ?? "");
    reader.onerror = () => reject(new Error("the file could not be read"));
    reader.readAsDataURL(file);
  });
}
