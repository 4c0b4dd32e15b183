// The games list: every game with its picture, badges and nudges, starting one (a bundled puzzle
// or a file), and signing this browser out from its menu. Loaded by app.js when it is first shown.

import { api, forget, identity } from "./api.js";
import { connection } from "./connection.js";
import { el, main, stylesheet, toast } from "./dom.js";
import { navigate, signedOut } from "./nav.js";
import { forgetAll, unsentCount } from "./queue.js";
import { route } from "./routes.js";

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

/** Reads a File as base64 for an upload. */
function base64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",")[1] ?? "");
    reader.onerror = () => reject(new Error("the file could not be read"));
    reader.readAsDataURL(file);
  });
}
