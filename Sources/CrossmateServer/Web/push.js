// Web Push on this device: asks the browser for a subscription with the server's VAPID key and
// hands it to the server, which calls the player back to their games when they are away (the
// rule is the server's: CallBack in CrossmateSync). Which events call is an account setting.

import { api } from "./api.js";
import { route } from "./routes.js";

/** Whether this browser can take pushes at all. */
export function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** This device's state: "unsupported", "denied", "on" or "off". */
export async function pushState() {
  if (!pushSupported()) return "unsupported";
  if (Notification.permission === "denied") return "denied";
  const registration = await navigator.serviceWorker.getRegistration();
  const subscription = await registration?.pushManager.getSubscription();
  return subscription && Notification.permission === "granted" ? "on" : "off";
}

/** How long a push service has to answer a subscription: a browser with none never does. */
const subscribeSeconds = 12;

/** `promise`, or a clear error when it has not settled in `seconds`. */
function answered(promise, seconds, message) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(message)), seconds * 1000)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** Turns notifications on for this device: permission, a subscription, the server told. */
export async function turnPushOn() {
  if (!pushSupported()) throw new Error("This browser cannot show notifications from a web app.");
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new Error("Notifications are blocked for this site; allow them in the browser's site settings.");
  const registration = await navigator.serviceWorker.ready;
  const { publicKey } = await api(...route("pushKey"));
  let subscription = await registration.pushManager.getSubscription();
  if (subscription && subscription.options?.applicationServerKey) {
    const held = new Uint8Array(subscription.options.applicationServerKey);
    const wanted = keyBytes(publicKey);
    if (held.length !== wanted.length || held.some((byte, i) => byte !== wanted[i])) {
      await subscription.unsubscribe();
      subscription = null;
    }
  }
  try {
    subscription ??= await answered(
      registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) }),
      subscribeSeconds,
      "No push service answered this browser, so notifications cannot reach this device. Install Crossmate from a browser that has one (Chrome, Edge, Firefox, Safari).",
    );
  } catch (failure) {
    if (failure.name === "AbortError" || failure.name === "NotAllowedError" || failure.name === "InvalidStateError") {
      throw new Error(`This browser's push service refused (${failure.message}), so notifications cannot reach this device.`);
    }
    throw failure;
  }
  const { endpoint, keys } = subscription.toJSON();
  await api(...route("pushSubscribe"), { endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } });
}

/** Turns notifications off for this device (the account's other devices keep theirs). */
export async function turnPushOff() {
  const registration = await navigator.serviceWorker.getRegistration();
  const subscription = await registration?.pushManager.getSubscription();
  await api(...route("pushUnsubscribe"));
  await subscription?.unsubscribe();
}

/** Shows `count` unread games on the app's icon, where the platform has a badge. */
export function setBadge(count) {
  if (!("setAppBadge" in navigator)) return;
  (count > 0 ? navigator.setAppBadge(count) : navigator.clearAppBadge()).catch(() => {});
}

async function notifications(filter) {
  const registration = "serviceWorker" in navigator ? await navigator.serviceWorker.getRegistration() : null;
  return registration?.getNotifications ? registration.getNotifications(filter) : [];
}

/** A game was opened: its notification goes, and the badge counts the games still waiting. */
export async function readGame(gameID) {
  try {
    for (const shown of await notifications({ tag: `game-${gameID}` })) shown.close();
    setBadge((await notifications()).length);
  } catch {
    // No service worker here (a first visit): nothing was shown.
  }
}

/** The games list says how many games have news (`unreadCount`, the server's count). */
export async function listed(unreadCount) {
  setBadge(unreadCount);
  if (unreadCount > 0) return;
  try {
    for (const shown of await notifications()) shown.close();
  } catch {
    // As above.
  }
}
