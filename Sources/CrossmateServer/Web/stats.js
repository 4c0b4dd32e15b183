// The Stats page: what the server reads from this account's finished games (it counts; this
// page draws). The days are this browser's time zone's.

import { api } from "./api.js";
import { el, stylesheet } from "./dom.js";
import { route } from "./routes.js";

/** "12:40", "1:02:03". */
export const duration = (seconds) => {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return (h ? `${h}:${String(m).padStart(2, "0")}` : `${m}`) + `:${String(s).padStart(2, "0")}`;
};

const days = (n) => `${n} ${n === 1 ? "day" : "days"}`;

/** The account's stats, in this browser's time zone. */
export async function loadStats() {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  return api(route("stats")[0], `${route("stats")[1]}?timeZone=${encodeURIComponent(zone)}`);
}

/** Puzzles solved each day as bars (plain SVG): a bar per day, labelled for a screen reader. */
function chart(stats, dates) {
  const width = 28 * 12;
  const height = 80;
  const most = Math.max(1, ...stats.recent.map((day) => day.solved));
  const total = stats.recent.reduce((sum, day) => sum + day.solved, 0);
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height + 18}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `Puzzles solved each day from ${dates[0]} to ${dates.at(-1)}: ${total} in all`);
  stats.recent.forEach((day, index) => {
    const bar = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    const tall = day.solved ? Math.max(4, (day.solved / most) * height) : 2;
    bar.setAttribute("x", String(index * 12 + 1));
    bar.setAttribute("y", String(height - tall));
    bar.setAttribute("width", "10");
    bar.setAttribute("height", String(tall));
    bar.setAttribute("rx", "2");
    bar.setAttribute("class", day.solved ? "solved" : "none");
    bar.setAttribute("data-day", dates[index]);
    const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
    title.textContent = `${dates[index]}: ${day.solved} solved`;
    bar.append(title);
    svg.append(bar);
  });
  for (const [text, x, anchor] of [[dates[0], 0, "start"], [dates.at(-1), width, "end"]]) {
    const label = document.createElementNS("http://www.w3.org/2000/svg", "text");
    label.setAttribute("x", String(x));
    label.setAttribute("y", String(height + 14));
    label.setAttribute("text-anchor", anchor);
    label.textContent = text;
    svg.append(label);
  }
  return svg;
}

export async function statsPage(main) {
  await stylesheet("pages.css");
  document.title = "Stats · Crossmate";
  const body = el("div", { class: "stats" }, el("p", { class: "loading" }, "Reading your finished games…"));
  main.replaceChildren(
    el(
      "section",
      { class: "page" },
      el("div", { class: "heading" }, el("h1", {}, "Your stats"), el("a", { href: "/", "data-route": true }, "Your games")),
      body,
    ),
  );
  let answer;
  try {
    answer = await loadStats();
  } catch (failure) {
    body.replaceChildren(el("p", { class: "error", role: "alert" }, failure.message));
    return;
  }
  const { stats, recentDates, names } = answer;
  if (!stats.finished) {
    body.replaceChildren(el("p", { "data-stats-empty": true }, "No finished puzzles yet: your stats start with the first one."));
    return;
  }
  const figure = (value, label, name) => el("div", { class: "figure", "data-stat": name }, el("strong", {}, value), el("span", {}, label));
  const help = [[stats.withChecks, "with checks"], [stats.withReveals, "with reveals"], [stats.withAutocheck, "with autocheck"]].filter(([count]) => count);
  // (replaceChildren would write a null as "null": the parts a page may not have are dropped.)
  const parts = [
    el(
      "div",
      { class: "figures" },
      figure(String(stats.solved), `solved of ${stats.finished} finished`, "solved"),
      figure(days(stats.currentStreak), "streak", "streak"),
      figure(days(stats.longestStreak), "longest streak", "longest"),
      figure(String(stats.clean), "without help", "clean"),
      figure(days(stats.cleanCurrentStreak ?? 0), "streak without help", "clean-streak"),
    ),
    help.length ? el("p", { class: "help-used" }, help.map(([count, what]) => `${count} ${what}`).join(" · ")) : null,
    el("h2", {}, "The last four weeks"),
    chart(stats, recentDates),
    el("h2", {}, "Times by grid size"),
    el(
      "table",
      { class: "times", "data-times": true },
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Size"), el("th", { scope: "col" }, "Solved"), el("th", { scope: "col" }, "Median"), el("th", { scope: "col" }, "Best"))),
      el("tbody", {}, ...stats.bySize.map((size) => el("tr", {}, el("th", { scope: "row" }, size.size), el("td", {}, String(size.solved)), el("td", {}, duration(size.medianSeconds)), el("td", {}, duration(size.bestSeconds))))),
    ),
    stats.together.length ? el("h2", {}, "With friends") : null,
    stats.together.length
      ? el(
          "table",
          { class: "times", "data-together": true },
          el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Friend"), el("th", { scope: "col" }, "Solved together"), el("th", { scope: "col" }, "Median"), el("th", { scope: "col" }, "Streak"))),
          el(
            "tbody",
            {},
            ...stats.together.map((friend) =>
              el(
                "tr",
                { "data-friend-stats": friend.authorID },
                el("th", { scope: "row" }, names[friend.authorID] ?? "another player"),
                el("td", {}, String(friend.solved)),
                el("td", {}, duration(friend.medianSeconds)),
                el("td", {}, `${days(friend.currentStreak)} (longest ${days(friend.longestStreak)})`),
              ),
            ),
          ),
        )
      : null,
    el("p", { class: "help" }, `Days are counted in ${answer.timeZone}.`),
  ];
  body.replaceChildren(...parts.filter(Boolean));
}
