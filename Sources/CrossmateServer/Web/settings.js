// The account's settings (SolverSettings on the server): how the keys move, autocheck and the
// colour scheme. The server keeps them with the account, so every device of it solves alike;
// this browser keeps the last copy it heard for starting offline. The dialog that changes them
// is settingsdialog.js, loaded when it is opened.

import { api } from "./api.js";
import { connection } from "./connection.js";
import { route } from "./routes.js";

const SAVED = "crossmate.settings";

function saved() {
  try {
    return JSON.parse(localStorage.getItem(SAVED) ?? "null");
  } catch {
    return null;
  }
}

export const settings = {
  current: saved(),

  /** Options for the solving keys (keys.js), as the server computed them. */
  get keyOptions() {
    return this.current?.keyOptions;
  },

  get autocheck() {
    return !!this.current?.autocheck;
  },

  adopt(answer) {
    this.current = answer;
    localStorage.setItem(SAVED, JSON.stringify(answer));
    applyTheme();
  },

  async load() {
    try {
      this.adopt(await api(...route("settings")));
    } catch {
      // Offline or signed out: the last copy stands.
    }
  },

  async set(name, value) {
    this.adopt(await api(...route("putSetting"), { name, value, writtenAt: Math.round(connection.now()) }));
  },
};

export function applyTheme() {
  const theme = settings.current?.settings?.theme ?? "system";
  if (theme === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}
