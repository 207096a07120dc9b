// Clean-ups that run however a script ends: a normal exit, an uncaught error
// (both emit "exit"), or Ctrl-C / a kill (turned into an exit here).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const cleanups = new Set();
let installed = false;

function install() {
  installed = true;
  process.on("exit", () => {
    for (const cleanup of [...cleanups].reverse()) {
      try {
        cleanup();
      } catch {
        // best effort while exiting
      }
    }
  });
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]]) {
    process.once(signal, () => {
      process.stderr.write(`${signal}: cleaning up\n`);
      process.exit(code);
    });
  }
}

/** Runs `fn` (synchronous) when the process ends, unless `cancel()` is called first. */
export function onProcessEnd(fn) {
  if (!installed) install();
  cleanups.add(fn);
  return { cancel: () => cleanups.delete(fn) };
}

/** A temporary directory, removed when the process ends (or by `remove()`). */
export function tempDir(prefix) {
  const path = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(path, { recursive: true, force: true });
  const hook = onProcessEnd(remove);
  return {
    path,
    remove: () => {
      hook.cancel();
      remove();
    },
  };
}
