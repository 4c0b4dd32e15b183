// What this browser keeps so that nothing typed is lost: every command until the server has
// answered it (IndexedDB, so a reload or a closed tab keeps it), and the last state of each
// game it opened, so a reload while offline still shows the grid.

const DATABASE = "crossmate";
let opening = null;

function database() {
  opening ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => {
      const db = request.result;
      db.createObjectStore("commands", { keyPath: "key", autoIncrement: true }).createIndex("game", "gameID");
      db.createObjectStore("games", { keyPath: "gameID" });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  return opening;
}

async function run(store, mode, work) {
  const db = await database();
  return new Promise((resolve, reject) => {
    const transaction = db.transaction(store, mode);
    const result = work(transaction.objectStore(store));
    transaction.oncomplete = () => resolve(result?.result);
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error);
  });
}

let lastKey = 0;

/** A key for a command typed at `typedAt`, chosen here rather than by IndexedDB so that the
 * command can go to the server before it is on disk. Keys only grow in this page (commands go
 * oldest first, and a clock corrected backwards must not reorder them), start above every
 * command already queued (`restored`), and carry ten random bits below the time so that two
 * tabs typing in one millisecond do not share one (up to the year 2248, within 2^53). */
export function commandKey(typedAt, restored = 0) {
  const random = crypto.getRandomValues(new Uint16Array(1))[0] & 1023;
  lastKey = Math.max(lastKey + 1, restored + 1, typedAt * 1024 + random);
  return lastKey;
}

/** Queues a command under `key`; resolves once it is stored. The server may answer first: the
 * answer's `settle` is a later transaction on the same store, so it runs after this one. */
export function enqueue(key, gameID, command, typedAt) {
  return run("commands", "readwrite", (store) => store.add({ key, gameID, command, typedAt }));
}

/** The game's queued commands, oldest first. */
export function queued(gameID) {
  return run("commands", "readonly", (store) => store.index("game").getAll(gameID)).then((rows) =>
    (rows ?? []).sort((a, b) => a.key - b.key),
  );
}

/** The server refused the command: it leaves the queue. */
export function settle(key) {
  return run("commands", "readwrite", (store) => store.delete(key));
}

/** Keeps the game as it shows, and in the same transaction lets go of the commands whose
 * effect it holds (`applied`): at every moment the saved game and the queue hold everything. */
export async function saveGame(opened, applied = []) {
  const db = await database();
  return new Promise((resolve) => {
    const transaction = db.transaction(["games", "commands"], "readwrite");
    transaction.objectStore("games").put(opened);
    for (const key of applied) transaction.objectStore("commands").delete(key);
    transaction.oncomplete = () => resolve(true);
    transaction.onerror = transaction.onabort = () => resolve(false);
  }).catch(() => false);
}

export function savedGame(gameID) {
  return run("games", "readonly", (store) => store.get(gameID)).catch(() => null);
}

/** How many commands wait for the server, in every game. */
export async function unsentCount() {
  return (await run("commands", "readonly", (store) => store.count())) ?? 0;
}

/** Forgets everything this browser keeps (signing out): the queue and the saved games. */
export async function forgetAll() {
  await run("commands", "readwrite", (store) => store.clear());
  await run("games", "readwrite", (store) => store.clear());
}
