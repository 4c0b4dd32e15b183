// The finish of a game: the banner with the scores, the replay scrubber, the ripple of a solve
// seen as it happens. Loaded with the first finished game (a game in play never needs it); it
// draws into the game page (`GameView`) it is handed.

import { connection } from "./connection.js";
import { el } from "./dom.js";
import { ReplayPlayer } from "./replay.js";

/** The banner, the scores and the replay of a finished game (drawn again only when they change). */
export function drawEnding(page) {
  const completion = page.view.completion;
  const signature = JSON.stringify([completion, page.view.scoreboard ?? [], page.view.finish ?? null, page.view.headline ?? null]);
  if (page.banner.dataset.shown === signature) return;
  page.banner.dataset.shown = signature;
  // How it ended and the line that tells it, as the server counted them (`FinishSummary`, the
  // same on every device): a grid completed by a reveal is finished with help, not solved, and
  // help is counted in squares, not clicks.
  const finish = page.view.finish ?? (completion.kind === "solved" ? "solved" : "resigned");
  const solved = finish === "solved" || finish === "solvedWithHelp";
  const scores = page.view.scoreboard ?? [];
  const squares = (count, what) => `${count} ${count === 1 ? "square" : "squares"} ${what}`;
  const helped = scores.some((score) => score.squaresRevealed || score.squaresChecked);
  const heading = page.view.headline ?? "This game is finished.";
  page.banner.replaceChildren(
    el("h2", { "data-completed": completion.kind, "data-finish": finish, "data-help": helped ? "used" : "none" }, heading),
    el(
      "ol",
      { class: "scores" },
      ...(page.view.scoreboard ?? []).map((score) =>
        el(
          "li",
          {},
          el("i", { class: "swatch", style: `background:${page.colorOf(score.authorID)}` }),
          `${page.nameOf(score.authorID)}: ${score.lettersAuthored} letters`,
          score.squaresChecked ? `, ${squares(score.squaresChecked, "checked")}` : "",
          score.squaresRevealed ? `, ${squares(score.squaresRevealed, "revealed")}` : "",
        ),
      ),
    ),
    page.replayBox = el("div", { class: "replay", "data-replay": true }, "Loading the replay…"),
    el(
      "p",
      { class: "next" },
      // Everyone still in this game comes along; those on this page go straight in.
      page.view.readOnly ? null : el("a", { href: `/?with=${encodeURIComponent(page.gameID)}`, "data-route": true, class: "button primary", "data-next": true }, "Next puzzle together"),
      " ",
      el("a", { href: "/", "data-route": true }, "Back to your games"),
    ),
  );
  if (!page.replayData?.ready && !page.replayLoading) connection.send({ type: "replay", gameID: page.gameID });
  else page.renderReplay();
  // A solve seen as it happens gets a ripple across the grid (not a game opened finished, and
  // not a grid completed by revealing it).
  if (solved && page.sawPlaying && !page.celebrated) {
    page.celebrated = true;
    for (const [where, { cell }] of page.cells) {
      const [row, col] = where.split(",").map(Number);
      cell.style.setProperty("--wave", String(row + col));
    }
    const game = page.main.querySelector(".game");
    game.classList.add("celebrate");
    setTimeout(() => game.classList.remove("celebrate"), 2500);
  }
}

/** The replay scrubber: drag from the finished grid back to the empty one, or play it. */
export function drawReplay(page) {
  const replay = page.replayData;
  if (!page.replayBox || !replay) return;
  if (!replay.ready) {
    page.replayBox.textContent = replay.waitingFor
      ? `Replay: waiting for ${replay.waitingFor} ${replay.waitingFor === 1 ? "device" : "devices"} to sync their history.`
      : "Replay: waiting for the game's history.";
    return;
  }
  if (page.replayBox.dataset.steps === String(replay.steps.length)) return;
  page.replayBox.dataset.steps = String(replay.steps.length);
  buildReplay(page, replay, new ReplayPlayer(replay.steps));
}

function buildReplay(page, replay, player) {
  const count = replay.steps.length;
  const slider = el("input", { type: "range", min: "0", max: String(count), value: String(count), "aria-label": "replay position", "data-replay-slider": true });
  const label = el("span", { class: "replay-at" });
  const speed = el("select", { "aria-label": "replay speed" }, ...[1, 10, 100].map((x) => el("option", { value: String(x) }, `${x}×`)));
  const play = el("button", { type: "button", "data-replay-play": true }, "▶ Play");
  const show = (step) => {
    slider.value = String(step);
    page.replayFrame = step >= count ? null : player.seek(step);
    label.textContent = `move ${step} of ${count}`;
    page.renderGrid();
  };
  const stop = () => {
    clearTimeout(page.playing);
    page.playing = null;
    play.textContent = "▶ Play";
  };
  const advance = () => {
    const step = Number(slider.value);
    if (step >= count) return stop();
    show(step + 1);
    const gap = step + 1 < count ? replay.times[step + 1] - replay.times[step] : 0;
    page.playing = setTimeout(advance, Math.min(1500, Math.max(16, gap / Number(speed.value))));
  };
  slider.addEventListener("input", () => {
    stop();
    show(Number(slider.value));
  });
  play.addEventListener("click", () => {
    if (page.playing) return stop();
    if (Number(slider.value) >= count) show(0);
    play.textContent = "❚❚ Pause";
    advance();
  });
  label.textContent = `move ${count} of ${count}`;
  page.replayBox.replaceChildren(el("b", {}, "Replay "), play, " ", speed, " ", slider, " ", label);
}

/** A part of the replay from the server: not ready yet (asked again in 3 s), or one of its
 * pages, gathered in order and shown once whole. */
export function heardReplay(page, part) {
  if (!page.grid?.isConnected) return;
  if (!part.ready) {
    page.replayLoading = null;
    page.replayData = part;
    clearTimeout(page.replayPoll);
    page.replayPoll = setTimeout(() => connection.send({ type: "replay", gameID: page.gameID }), 3000);
    page.renderReplay();
    return;
  }
  if (part.from === 0 || page.replayLoading?.total !== part.total) page.replayLoading = { total: part.total, steps: [], times: [] };
  const loading = page.replayLoading;
  if (part.from !== loading.steps.length) return;
  loading.steps.push(...part.steps);
  loading.times.push(...part.times);
  if (loading.steps.length < part.total && part.steps.length > 0) {
    connection.send({ type: "replay", gameID: page.gameID, from: loading.steps.length });
    return;
  }
  page.replayLoading = null;
  page.replayData = { ...part, from: 0, steps: loading.steps, times: loading.times };
  page.renderReplay();
}
