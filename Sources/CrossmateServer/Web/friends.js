// Friends: everyone this account has played with, their colours (pin one, or let it be),
// blocking, and renaming. Loaded by app.js when it is first shown.

import { api, identity } from "./api.js";
import { connection } from "./connection.js";
import { el, main, stylesheet, toast } from "./dom.js";
import { limits } from "./limits.js";
import { route } from "./routes.js";

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
