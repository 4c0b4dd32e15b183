// The finish of a game: the banner with the scores, the replay scrubber, the ripple of a solve
// seen as it happens. Loaded with the first finished game (a game in play never needs it); it
// draws into the game page's view (`GameView`, gameview.js) it is handed, and keeps the replay's
// progress in the view's model (`model.replay`).

import { connection } from "./connection.js";
import { el } from "./dom.js";
import { ReplayPlayer } from "./replay.js";

/** The banner, the scores and the replay of a finished game (drawn again only when they change). */
export function drawEnding(view) {
  const { view: game, replay } = view.model;
  const completion = game.completion;
  const signature = JSON.stringify([completion, game.scoreboard ?? [], game.finish ?? null, game.headline ?? null]);
  if (view.banner.dataset.shown === signature) return;
  view.banner.dataset.shown = signature;
  // How it ended and the line that tells it, as the server counted them (`FinishSummary`, the
  // same on every device): a grid completed by a reveal is finished with help, not solved, and
  // help is counted in squares, not clicks.
  const finish = game.finish ?? (completion.kind === "solved" ? "solved" : "resigned");
  const solved = finish === "solved" || finish === "solvedWithHelp";
  const scores = game.scoreboard ?? [];
  const squares = (count, what) => `${count} ${count === 1 ? "square" : "squares"} ${what}`;
  const helped = scores.some((score) => score.squaresRevealed || score.squaresChecked);
  const heading = game.headline ?? "This game is finished.";
  view.banner.replaceChildren(
    el("h2", { "data-completed": completion.kind, "data-finish": finish, "data-help": helped ? "used" : "none" }, heading),
    el(
      "ol",
      { class: "scores" },
      ...(game.scoreboard ?? []).map((score) =>
        el(
          "li",
          {},
          el("i", { class: "swatch", style: `background:${view.model.colorOf(score.authorID)}` }),
          `${view.model.nameOf(score.authorID)}: ${score.lettersAuthored} letters`,
          score.squaresChecked ? `, ${squares(score.squaresChecked, "checked")}` : "",
          score.squaresRevealed ? `, ${squares(score.squaresRevealed, "revealed")}` : "",
        ),
      ),
    ),
    view.replayBox = el("div", { class: "replay", "data-replay": true }, "Loading the replay…"),
    el(
      "p",
      { class: "next" },
      // Everyone still in this game comes along; those on this page go straight in.
      game.readOnly ? null : el("a", { href: `/?with=${encodeURIComponent(view.model.gameID)}`, "data-route": true, class: "button primary", "data-next": true }, "Next puzzle together"),
      " ",
      el("a", { href: "/", "data-route": true }, "Back to your games"),
    ),
  );
  if (!replay.data?.ready && !replay.loading) connection.send({ type: "replay", gameID: view.model.gameID });
  else view.renderReplay();
  // A solve seen as it happens gets a ripple across the grid (not a game opened finished, and
  // not a grid completed by revealing it).
  if (solved && view.sawPlaying && !view.celebrated) {
    view.celebrated = true;
    for (const [where, { cell }] of view.grid.cells) {
      const [row, col] = where.split(",").map(Number);
      cell.style.setProperty("--wave", String(row + col));
    }
    const section = view.main.querySelector(".game");
    section.classList.add("celebrate");
    setTimeout(() => section.classList.remove("celebrate"), 2500);
  }
}

/** The replay scrubber: drag from the finished grid back to the empty one, or play it. */
export function drawReplay(view) {
  const replay = view.model.replay.data;
  if (!view.replayBox || !replay) return;
  if (!replay.ready) {
    view.replayBox.textContent = replay.waitingFor
      ? `Replay: waiting for ${replay.waitingFor} ${replay.waitingFor === 1 ? "device" : "devices"} to sync their history.`
      : "Replay: waiting for the game's history.";
    return;
  }
  if (view.replayBox.dataset.steps === String(replay.steps.length)) return;
  view.replayBox.dataset.steps = String(replay.steps.length);
  buildReplay(view, replay, new ReplayPlayer(replay.steps));
}

function buildReplay(view, replay, player) {
  const shown = view.model.replay; // the frame shown and the play timer
  const count = replay.steps.length;
  const slider = el("input", { type: "range", min: "0", max: String(count), value: String(count), "aria-label": "replay position", "data-replay-slider": true });
  const label = el("span", { class: "replay-at" });
  const speed = el("select", { "aria-label": "replay speed" }, ...[1, 10, 100].map((x) => el("option", { value: String(x) }, `${x}×`)));
  const play = el("button", { type: "button", "data-replay-play": true }, "▶ Play");
  const show = (step) => {
    slider.value = String(step);
    shown.frame = step >= count ? null : player.seek(step);
    label.textContent = `move ${step} of ${count}`;
    view.grid.render();
  };
  const stop = () => {
    clearTimeout(shown.playing);
    shown.playing = null;
    play.textContent = "▶ Play";
  };
  const advance = () => {
    const step = Number(slider.value);
    if (step >= count) return stop();
    show(step + 1);
    const gap = step + 1 < count ? replay.times[step + 1] - replay.times[step] : 0;
    shown.playing = setTimeout(advance, Math.min(1500, Math.max(16, gap / Number(speed.value))));
  };
  slider.addEventListener("input", () => {
    stop();
    show(Number(slider.value));
  });
  play.addEventListener("click", () => {
    if (shown.playing) return stop();
    if (Number(slider.value) >= count) show(0);
    play.textContent = "❚❚ Pause";
    advance();
  });
  label.textContent = `move ${count} of ${count}`;
  view.replayBox.replaceChildren(el("b", {}, "Replay "), play, " ", speed, " ", slider, " ", label);
}

/** A part of the replay from the server: not ready yet (asked again in 3 s), or one of its
 * pages, gathered in order and shown once whole. */
export function heardReplay(view, part) {
  const { replay } = view.model;
  if (!view.grid?.element.isConnected) return;
  if (!part.ready) {
    replay.loading = null;
    replay.data = part;
    clearTimeout(replay.poll);
    replay.poll = setTimeout(() => connection.send({ type: "replay", gameID: view.model.gameID }), 3000);
    view.renderReplay();
    return;
  }
  if (part.from === 0 || replay.loading?.total !== part.total) replay.loading = { total: part.total, steps: [], times: [] };
  const loading = replay.loading;
  if (part.from !== loading.steps.length) return;
  loading.steps.push(...part.steps);
  loading.times.push(...part.times);
  if (loading.steps.length < part.total && part.steps.length > 0) {
    connection.send({ type: "replay", gameID: view.model.gameID, from: loading.steps.length });
    return;
  }
  replay.loading = null;
  replay.data = { ...part, from: 0, steps: loading.steps, times: loading.times };
  view.renderReplay();
}
