// Every npm script and every runnable file answers --help with its usage on
// stdout (exit 0) and does nothing else: no file written or changed, no
// install, no process left behind. A script that ignored --help would run
// the suite, install packages, deploy or start wrangler dev.
//
// Nothing here is a hand-kept list. The npm scripts are package.json's, run
// as a reader would (`npm run <script> -- --help`, so a pre-hook would run
// too). The files are those of scripts/, tools/, bench/ and the client's
// generator that are meant to be run: a file is a script when it starts with
// a shebang (`#!`); every other file there is a library (tools/lib, the
// bench's and the generator's modules). Two checks keep that rule honest:
// every file in scripts/ is a script (libraries live in tools/lib), and
// every file an npm script runs with node has a shebang.
//
// The runs go in parallel, a few at a time; the repository is compared before
// and after all of them, and each run's processes are found by a marker in
// their environment once it has exited (Linux: /proc).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative } from "node:path";
import { test } from "node:test";
import { SCRIPTS as STEP_SCRIPTS } from "../../scripts/steps.mjs";
import { ROOT } from "../../tools/lib/wrangler.mjs";

const PACKAGE_SCRIPTS = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts;
const SCRIPT_DIRS = ["scripts", "tools", "bench", "clients/typescript/generator"];
const MARKER = "MUSEUM_HELP_CHECK";
/** A run that has not exited by then ignored --help (a server, a suite, an install). */
const GIVE_UP_MS = 60_000;

function mjsFiles(dir) {
  const files = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    if (entry.name === "node_modules") continue;
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) files.push(...mjsFiles(path));
    else if (entry.name.endsWith(".mjs")) files.push(path);
  }
  return files.sort();
}

const isScript = (file) => readFileSync(join(ROOT, file), "utf8").startsWith("#!");
const FILES = SCRIPT_DIRS.flatMap(mjsFiles);
const RUNNABLE = FILES.filter(isScript);

/** The files package.json's scripts run with node, directly or through scripts/steps.mjs. */
function filesRunByNpmScripts() {
  const commands = [
    ...Object.values(PACKAGE_SCRIPTS).map((line) => line.split(/\s+/)),
    ...Object.values(STEP_SCRIPTS).flatMap((script) => script.commands),
  ];
  return [...new Set(commands.filter(([command, file]) => command === "node" && file.endsWith(".mjs")).map(([, file]) => file))];
}

test("no npm script has a pre- or post-hook: npm runs a hook without the script's arguments, so it cannot see --help", () => {
  const hooks = Object.keys(PACKAGE_SCRIPTS).filter((name) => /^(pre|post)./.test(name) && Object.hasOwn(PACKAGE_SCRIPTS, name.replace(/^(pre|post)/, "")));
  assert.deepEqual(hooks, [], "run the step first from scripts/steps.mjs instead");
});

test("the files meant to be run are found: scripts/ holds only scripts, and every file an npm script runs is one", () => {
  assert.deepEqual(FILES.filter((file) => file.startsWith("scripts/") && !isScript(file)), [], "a library of the scripts belongs in tools/lib/");
  for (const file of filesRunByNpmScripts()) {
    assert.ok(existsSync(join(ROOT, file)), `${file} (run by an npm script) exists`);
    assert.ok(RUNNABLE.includes(file), `${file} is run by an npm script: it starts with #!/usr/bin/env node`);
  }
  assert.ok(RUNNABLE.includes("bench/run.mjs") && RUNNABLE.includes("clients/typescript/generator/generate.mjs"));
  assert.ok(!RUNNABLE.some((file) => file.startsWith("tools/lib/")), "tools/lib holds libraries");
});

/**
 * What a run could change: every file of the repository but .git and the
 * contents of node_modules (there, what an install rewrites: its
 * .package-lock.json), and wrangler's bundling scratch (.wrangler/tmp, which
 * a wrangler dev of the developer's own rewrites on every edit; a run that
 * started wrangler is caught by its output and its processes).
 */
function repositoryState() {
  const state = new Map();
  const note = (path) => {
    const { mtimeMs, size } = statSync(path);
    state.set(relative(ROOT, path), `${mtimeMs} ${size}`);
  };
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.name === ".git" || path === join(ROOT, ".wrangler", "tmp")) continue;
      if (entry.name === "node_modules") {
        state.set(relative(ROOT, path), "installed");
        if (existsSync(join(path, ".package-lock.json"))) note(join(path, ".package-lock.json"));
      } else if (entry.isDirectory()) walk(path);
      else note(path);
    }
  };
  walk(ROOT);
  return state;
}

/** Processes whose environment holds `MARKER=<id>`: a run's, still alive after it exited. */
function processesMarked(id) {
  const wanted = `${MARKER}=${id}`;
  const found = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    let environ;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, "utf8");
    } catch {
      continue; // gone, or another user's
    }
    if (environ.split("\0").includes(wanted)) {
      let command = "";
      try {
        command = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      } catch {}
      found.push({ pid: Number(pid), command });
    }
  }
  return found;
}

const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ["npm"];
const RUNS = [
  ...Object.keys(PACKAGE_SCRIPTS).map((name) => ({ label: `npm run ${name} -- --help`, argv: [...npm, "run", name, "--", "--help"], npm: true })),
  ...RUNNABLE.flatMap((file) => ["--help", "-h"].map((flag) => ({ label: `node ${file} ${flag}`, argv: [process.execPath, file, flag], npm: false }))),
];

function runOnce({ argv }) {
  const id = randomUUID();
  return new Promise((resolve) => {
    // Its own process group, so that a run that ignored --help can be ended whole.
    const child = spawn(argv[0], argv.slice(1), {
      cwd: ROOT,
      env: { ...process.env, [MARKER]: id },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    let gaveUp = false;
    const timer = setTimeout(() => {
      gaveUp = true;
      process.kill(-child.pid, "SIGKILL");
    }, GIVE_UP_MS);
    let finished = false;
    const finish = (code, signal) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      const left = existsSync("/proc/self/environ") ? processesMarked(id) : [];
      for (const { pid } of left) {
        try {
          process.kill(pid, "SIGKILL"); // this run's, found by its marker
        } catch {}
      }
      resolve({ code, signal, stdout, stderr, gaveUp, left });
    };
    // Its output is whole once every process holding the pipes has ended;
    // one still holding them a second after the run exited is left running.
    child.on("exit", (code, signal) => setTimeout(() => finish(code, signal), 1000));
    child.on("close", finish);
  });
}

const before = repositoryState();
const results = new Map();
{
  const queue = [...RUNS];
  const worker = async () => {
    for (let run = queue.shift(); run; run = queue.shift()) results.set(run, await runOnce(run));
  };
  await Promise.all(Array.from({ length: Math.min(4, Math.max(2, availableParallelism())) }, worker));
}
const after = repositoryState();

test("the runs are every npm script and every runnable file", () => {
  assert.ok(RUNS.some((run) => run.label === "npm run test -- --help") && RUNS.some((run) => run.label === "node bench/run.mjs --help"));
  assert.ok(RUNNABLE.length >= 20, RUNNABLE.join(", "));
});

for (const run of RUNS) {
  test(`${run.label}: usage on stdout, exit 0, nothing left running`, () => {
    const { code, signal, stdout, stderr, gaveUp, left } = results.get(run);
    const output = `${stdout}${stderr}`;
    assert.ok(!gaveUp, `still running after ${GIVE_UP_MS / 1000} s (ended):\n${output}`);
    assert.equal(code, 0, `exit ${code ?? signal}:\n${output}`);
    assert.match(stdout, /^usage: /im, output);
    assert.doesNotMatch(output, /Ready on http|Starting local server/, "wrangler dev started");
    if (!run.npm) assert.equal(stderr, "");
    assert.deepEqual(left, [], "processes left running (ended)");
  });
}

test("no run wrote, changed or removed a file, or installed anything", () => {
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((path) => before.get(path) !== after.get(path)).sort();
  assert.deepEqual(changed, [], `changed by one of: ${RUNS.map((run) => run.label).join("; ")}`);
});
