// The settings dialog: one control per setting the server names, each change saved at once.
// Loaded when it is opened (settings.js holds the settings themselves).

import { el, stylesheet } from "./dom.js";
import { pushState, turnPushOff, turnPushOn } from "./push.js";
import { settings } from "./settings.js";

/** Words for each setting and its choices; the server names the settings and their choices. */
const WORDS = {
  skipFilled: { label: "Skip filled squares while typing", choices: { on: "Yes", off: "No, go to the very next square" } },
  wordEnd: { label: "At the end of a word", choices: { next: "Go on to the next clue", stay: "Stay in the word" } },
  space: { label: "The space bar", choices: { turn: "Turns the direction", clear: "Clears the square and moves on" } },
  backspace: { label: "Backspace at a word's first square", choices: { word: "Stays in the word", previous: "Goes back into the previous word" } },
  autocheck: { label: "Autocheck: mark wrong letters as you type (counts as help)", choices: { off: "Off", on: "On" } },
  theme: { label: "Colours", choices: { system: "As this device", light: "Light", dark: "Dark" } },
  "notify-nudges": { label: "Notify me when a friend nudges me", choices: {} },
  "notify-chat": { label: "Notify me of chat in a game I am not in", choices: {} },
  "notify-moves": { label: "Notify me when friends solve without me (at most every 10 minutes a game)", choices: {} },
};

/** This device's notifications: a switch that subscribes it (or says why it cannot). The
 * account's choices below it (`accountChoices`) say, while this device is off, that they are what
 * the account's other devices are sent. */
function deviceNotifications(accountChoices) {
  const box = el("input", { type: "checkbox", id: "push-device", "data-push-device": true, disabled: true });
  // (A note, not help: the help the page hides on a phone; this is where a phone needs it.)
  const note = el("p", { class: "note", role: "status", "data-push-note": true });
  const row = el("div", { class: "setting switch" }, box, el("label", { for: "push-device" }, "Notifications on this device"));
  const show = (state) => {
    box.checked = state === "on";
    box.disabled = state === "unsupported" || state === "denied";
    note.textContent =
      state === "unsupported" ? "This browser cannot show notifications; add Crossmate to the home screen first on a phone."
      : state === "denied" ? "Notifications are blocked for this site: allow them in the browser's site settings."
      : "";
    accountChoices.querySelector("[data-account-note]").textContent = state === "on"
      ? "What calls you back, on this device and your others:"
      : "This device is not notified. What your other devices with notifications on are sent:";
  };
  pushState().then(show, () => show("unsupported"));
  box.addEventListener("change", async () => {
    box.disabled = true;
    note.textContent = box.checked ? "Asking this browser's push service…" : "";
    try {
      if (box.checked) await turnPushOn();
      else await turnPushOff();
      show(await pushState());
    } catch (failure) {
      show(await pushState().catch(() => "unsupported"));
      note.textContent = failure.message;
    }
  });
  return el("div", { class: "push-device" }, row, note);
}

/** The settings as a modal dialog, one control per setting (`data-setting="NAME"`); a change
 * is saved at once. `done` runs on close. */
export async function openSettings(done = () => {}) {
  await stylesheet("pages.css");
  const error = el("p", { class: "error", role: "alert" });
  const control = ({ name, choices }) => {
    const words = WORDS[name] ?? { label: name, choices: {} };
    const id = `setting-${name}`;
    const value = settings.current.settings[name];
    if (choices.length === 2 && choices.includes("on") && choices.includes("off")) {
      const box = el("input", { type: "checkbox", id, "data-setting": name, checked: value === "on" });
      box.addEventListener("change", () => save(name, box.checked ? "on" : "off", box));
      return el("div", { class: "setting switch" }, box, el("label", { for: id }, words.label));
    }
    const select = el("select", { id, "data-setting": name }, ...choices.map((choice) => el("option", { value: choice, selected: choice === value }, words.choices[choice] ?? choice)));
    select.addEventListener("change", () => save(name, select.value, select));
    return el("div", { class: "setting" }, el("label", { for: id }, words.label), select);
  };
  const available = settings.current?.available ?? [];
  const controls = available.filter(({ name }) => !name.startsWith("notify-")).map(control);
  // When to be called back is the account's; whether this device shows it is the device's.
  const notifying = available.filter(({ name }) => name.startsWith("notify-")).map(control);
  const save = async (name, value, control) => {
    error.textContent = "";
    control.disabled = true;
    try {
      await settings.set(name, value);
    } catch (failure) {
      error.textContent = `Not saved: ${failure.message}`;
    }
    control.disabled = false;
  };
  const dialog = el(
    "dialog",
    { class: "confirm settings", "data-settings-dialog": true, "aria-labelledby": "settings-title" },
    el("h2", { id: "settings-title" }, "Settings"),
    controls.length ? null : el("p", {}, "The settings could not be loaded; connect and try again."),
    ...controls,
    notifying.length ? el("h3", {}, "Notifications") : null,
    ...(notifying.length ? (() => {
      const choices = el("div", { class: "account-notify", "data-account-notify": true }, el("p", { class: "note", "data-account-note": true }), ...notifying);
      return [deviceNotifications(choices), choices];
    })() : []),
    el("p", { class: "note" }, "Kept with your account: your other devices solve the same way and are notified alike."),
    error,
    el("div", { class: "buttons" }, el("button", { type: "button", class: "primary", "data-settings-done": true, onclick: () => dialog.close() }, "Done")),
  );
  dialog.addEventListener("close", () => {
    dialog.remove();
    done();
  });
  document.body.append(dialog);
  dialog.showModal();
  (dialog.querySelector("[data-setting]") ?? dialog.querySelector("button")).focus();
  if (!settings.current) settings.load().then(() => {
    if (dialog.open) {
      dialog.close();
      openSettings(done);
    }
  });
}
