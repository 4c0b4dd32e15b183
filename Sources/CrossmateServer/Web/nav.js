// Moving between pages. The shell (app.js) shows the page a path names whenever a
// "crossmate:route" event says the path changed; pages navigate through here, so no page imports
// the shell.

import { forget } from "./api.js";
import { toast } from "./dom.js";

/** Shows the page at `path` (replacing the history entry with `replace`). */
export function navigate(path, replace = false) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  showAgain();
}

/** Shows the current path's page again (after signing in, say). */
export function showAgain() {
  dispatchEvent(new Event("crossmate:route"));
}

export function signedOut() {
  forget();
  toast("This browser was signed out (its device was revoked). Choose a name to start again.", "error");
  navigate("/", true);
}
