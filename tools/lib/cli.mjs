// Command-line plumbing for the scripts and the bench: argument parsing
// (node:util parseArgs), usage errors, logging to stderr.
import { parseArgs } from "node:util";

export class UsageError extends Error {}

export function log(message) {
  process.stderr.write(`${message}\n`);
}

/** Logs a progress line to stdout, prefixed with the UTC time of day (`[12:34:56]`). */
export function logProgress(message) {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
}

/**
 * `parseArgs` of node:util (strict: unknown options are usage errors) over
 * `argv`; returns `{ values, positionals }`. Arguments after `--` are
 * positionals.
 */
export function parseCommandLine(argv, options, { allowPositionals = true } = {}) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (error) {
    if (error?.code?.startsWith("ERR_PARSE_ARGS")) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * Prints `usage` to stdout and exits 0 when the command line asks for help
 * (`--help` or `-h`, before any `--`). A script calls it (or `runMain`)
 * before doing anything, so that asking for help never starts a server or
 * writes a file.
 */
export function exitOnHelp(usage, argv = process.argv.slice(2)) {
  if (asksForHelp(argv)) {
    process.stdout.write(`${usage.trimEnd()}\n`);
    process.exit(0);
  }
}

/** Whether a command line asks for help: `--help` or `-h` before any `--`. */
export function asksForHelp(argv) {
  const end = argv.indexOf("--");
  const options = end === -1 ? argv : argv.slice(0, end);
  return options.includes("--help") || options.includes("-h");
}

/**
 * Runs `main(argv)`: `--help` prints the usage text (exit 0, see exitOnHelp)
 * unless `main` answers it itself (`ownHelp`: a usage that depends on the
 * other arguments), usage errors print it to stderr (exit 2), other errors
 * print briefly (exit 1).
 */
export async function runMain(main, usage, { ownHelp = false } = {}) {
  if (!ownHelp) exitOnHelp(usage);
  try {
    await main(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      log(`error: ${error.message}\n\n${usage}`);
      process.exit(2);
    }
    log(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

/**
 * A fetch for the typed client's `fetch` option that gives up on a request
 * after `ms`, naming it: a request wrangler dev never answers fails the
 * script at once instead of holding CI until its own timeout.
 */
export function fetchWithin(ms) {
  return (request) =>
    fetch(request, { signal: AbortSignal.timeout(ms) }).catch((error) => {
      throw new Error(`${request.method} ${new URL(request.url).pathname}: ${error.name === "TimeoutError" ? `no answer within ${ms / 1000} s` : error.message}`);
    });
}
