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

/** Queues a command; resolves once it is stored, with its key. */
export function enqueue(gameID, command, typedAt) {
  return run("commands", "readwrite", (store) => store.add({ gameID, command, typedAt }));
}

/** The game's queued commands, oldest first. */
export function queued(gameID) {
  return run("commands", "readonly", (store) => store.index("game").getAll(gameID)).then((rows) =>
    (rows ?? []).sort((a, b) => a.key - b.key),
  );
}

/** The server answered the command: it leaves the queue. */
export function settle(key) {
  return run("commands", "readwrite", (store) => store.delete(key));
}

export function saveGame(opened) {
  return run("games", "readwrite", (store) => store.put(opened)).catch(() => {});
}

export function savedGame(gameID) {
  return run("games", "readonly", (store) => store.get(gameID)).catch(() => null);
}
