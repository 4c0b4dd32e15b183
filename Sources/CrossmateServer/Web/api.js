// This browser's identity and the server's HTTP API. The token stays in this browser's storage
// and goes only in the Authorization header; the socket opens with a one-time ticket. Routes
// come from the server's one route table (routes.js).

import { sentence } from "./dom.js";
import { route } from "./routes.js";

/** Where this browser keeps its identity (welcome.js writes it when an account is made or a device linked). */
export const IDENTITY = "crossmate.identity";

export function identity() {
  try {
    return JSON.parse(localStorage.getItem(IDENTITY) ?? "null");
  } catch {
    return null;
  }
}

export function forget() {
  localStorage.removeItem(IDENTITY);
}

/** A refusal from the server, with its message for a person and its code for the app. */
export class ServerError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Calls the API; the answer's JSON, or a ServerError (status 0 when the server is unreachable). */
export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const me = identity();
  if (me) headers.Authorization = `Bearer ${me.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ServerError(0, "offline", "The server cannot be reached. Check your connection; nothing you typed is lost.");
  }
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) throw refusal(response.status, json);
  return json;
}

/** A refused request's answer (`status` and its JSON body, if any) as a ServerError whose
 * message reads as a sentence. */
export function refusal(status, json) {
  return new ServerError(status, json?.error ?? "error", json?.message ? sentence(json.message) : `The server answered ${status}.`);
}

/** A WebSocket for this device, opened with a one-time ticket. */
export async function openSocket() {
  const { ticket } = await api(...route("socketTicket"), {});
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return new WebSocket(`${scheme}//${location.host}${route("socket")[1]}?ticket=${encodeURIComponent(ticket)}`);
}
