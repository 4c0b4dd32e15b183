// Saving a game (or all of them) as a file: fetched with this device's token, then handed to the
// browser as a download. Loaded when first used.
import { identity, refusal } from "./api.js";
import { toast } from "./dom.js";

/** Fetches `path` and saves what comes back under the name the server gives it. */
export async function download(path, fallbackName) {
  let response;
  try {
    response = await fetch(path, { headers: { Authorization: `Bearer ${identity()?.token ?? ""}` } });
  } catch {
    return toast("The server cannot be reached, so nothing was downloaded. Try again when you are online.", "error");
  }
  if (!response.ok) {
    return toast(refusal(response.status, await response.json().catch(() => null)).message, "error");
  }
  const name = /filename="([^"/]+)"/.exec(response.headers.get("Content-Disposition") ?? "")?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await response.blob());
  const link = Object.assign(document.createElement("a"), { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  toast(`Saved ${name}.`);
}
