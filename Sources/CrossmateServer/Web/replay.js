// The replay's grid at any step, without folding every step again for each frame: moving on
// applies the steps in between; going back starts from the nearest checkpoint (the grid as it
// stood every CHECKPOINT_EVERY steps, kept on the way through) and applies at most that many.
// Pure: the steps in, a Map of squares out.

import { key } from "./keys.js";

const CHECKPOINT_EVERY = 64;

export class ReplayPlayer {
  /** `steps`: the squares as each step left them, in order (ReplayView.steps). */
  constructor(steps) {
    this.steps = steps;
    this.step = 0;
    this.frame = new Map();
    this.checkpoints = [new Map()];
  }

  /** The squares after the first `step` steps (a Map from "row,col" to the square). */
  seek(step) {
    const target = Math.max(0, Math.min(this.steps.length, step));
    if (target < this.step || target - this.step > CHECKPOINT_EVERY) {
      const nearest = Math.min(Math.floor(target / CHECKPOINT_EVERY), this.checkpoints.length - 1);
      this.frame = new Map(this.checkpoints[nearest]);
      this.step = nearest * CHECKPOINT_EVERY;
    }
    while (this.step < target) {
      const square = this.steps[this.step];
      this.frame.set(key(square), square);
      this.step += 1;
      if (this.step % CHECKPOINT_EVERY === 0 && this.checkpoints.length === this.step / CHECKPOINT_EVERY) {
        this.checkpoints.push(new Map(this.frame));
      }
    }
    return this.frame;
  }
}
