// The docs name what exists. README.md, docs/*.md and the client's README
// name files, npm scripts, code, packages and database objects; when the code
// moves, a name left behind sends the reader to nothing. What the pages name
// must exist:
// - a path: a code span that looks like one (`src/...`, a file name with an
//   extension, a folder `name/`; globs `*`, `{a,b}`, `<name>`), a plain word
//   starting at a top-level folder (src/..., docs/...), a relative link:
//   some file or folder of the repository, from its root or as the end of a
//   longer path (`sell.ts`, `sales/conditions.ts`); else a file a session of
//   the pages writes (```` ```js file=… ````) or one the code reads from
//   outside (its name in a string of the code: Redocly's reference files);
// - an npm script (`npm run X`, `npm test`, in code spans and fenced
//   blocks): package.json's;
// - a code name (a code span in camelCase, PascalCase of two words or more,
//   UPPER_SNAKE, or called as `name()`): defined or used by name in the code
//   (a declaration, a class's method, an import, a property key, a type, a
//   string of just the name, a binding or environment variable read); a name of the served
//   OpenAPI document (its fields, parameters, operations, schemas: the
//   committed snapshot clients/typescript/openapi.json, which test/clients
//   holds equal to what the Worker serves) is the API's and passes; what is
//   left is another system's, listed in OTHER_SYSTEMS;
// - a scoped package (`@scope/name`): in one of the lockfiles;
// - a database name (a snake_case code span): not a table, index or trigger
//   a migration dropped for good, and a word of migrations/, the code or
//   wrangler.toml.
// Two more rules catch what a name alone cannot: every folder of src/ is on
// the README's layout and on docs/architecture.md, and a migration cited
// about triggers still creates one that no later migration dropped.
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";
import { ROOT } from "../../tools/lib/wrangler.mjs";

/** The pages checked: what an operator, an integrator or a newcomer reads. */
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
  "clients/typescript/README.md",
];

/** Code names of other systems that the pages explain, and whose they are. Kept small: a test fails on one no page needs. */
const OTHER_SYSTEMS = {
  AppType: "Hono RPC's type of an app (docs/client.md: why the client is not Hono RPC)",
  CLOUDFLARE_ACCOUNT_ID: "wrangler's environment",
  CLOUDFLARE_API_TOKEN: "wrangler's environment",
  wdErrId: "workerd's log lines",
  asPng: "@resvg/resvg-wasm's PNG encoder (docs/ticket-image.md: why it is not used)",
  getLostPoint: "qrcode-svg's mask scoring (docs/performance.md)",
  BuyEventTicketsRequestExample: "Redocly's reference description",
  served_by_primary: "D1's result metadata",
  served_by_region: "D1's result metadata",
};

const SKIP_DIRS = new Set([".git", "node_modules", ".wrangler", "dist"]);

/** Every file and folder of the repository, relative to its root (a folder ends in /). */
function walk(dir = "") {
  const paths = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    if (SKIP_DIRS.has(entry.name)) continue;
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) paths.push(`${path}/`, ...walk(path));
    else paths.push(path);
  }
  return paths;
}
const REPOSITORY = walk();
const TOP_LEVEL = new Set(readdirSync(ROOT));
const read = (path) => readFileSync(join(ROOT, path), "utf8");
const CODE = REPOSITORY.filter((path) => /\.(ts|mts|mjs|js)$/.test(path)).map(read);
const MIGRATIONS = REPOSITORY.filter((path) => /^migrations\/\d{4}_.*\.sql$/.test(path)).sort();

/**
 * Names the code defines or uses by name: declarations (exported or not),
 * imports and exports, property keys, the types it uses, strings of just the
 * name, and the bindings, settings and environment variables it reads. A
 * name that only a comment mentions is not among them.
 */
const IN_CODE = new Set();
/**
 * Every string of the code, a template's `${…}` standing for one path segment
 * or part of one when the rest says enough (`museum-openapi-${v}.yaml`): the
 * file names the tools read from outside the repository.
 */
const CODE_STRINGS = [];
for (const text of CODE) {
  const patterns = [
    /\b(?:function\*?|class|interface|type|enum|const|let|var)\s+([A-Za-z_$][\w$]*)/g,
    /(?:^|[{,])\s*(?:readonly\s+)?["']?([A-Za-z_$][\w$]*)["']?\??\s*:/gm,
    /["'`]([A-Za-z_$][\w$]*)["'`]/g,
    /\b(?:env|process\.env)\.([A-Z][A-Z0-9_]*)\b/g,
    /(?:[:<|]|\bextends|\bnew)\s*([A-Z][\w$]*)\b/g,
    /^\s*(?:(?:async|static|private|protected|public|get|set)\s+)*([A-Za-z_$][\w$]*)(?:<.*>)?\((?:[^;]*\{)?$/gm,
  ];
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) IN_CODE.add(m[1]);
  for (const m of text.matchAll(/\b(?:import|export)\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const part of m[1].split(",")) for (const name of part.trim().replace(/^type\s+/, "").split(/\s+as\s+/)) IN_CODE.add(name.trim());
  }
  for (const m of text.matchAll(/["'`]([^"'`\n]+)["'`]/g)) {
    const parts = m[1].split(/\$\{[^}]*\}/);
    if (parts.length > 1 && parts.join("").length < 8) continue;
    CODE_STRINGS.push(new RegExp(`(?:^|/)${parts.map((part) => part.replace(/[.*+?^$()|[\]\\{}]/g, "\\$&")).join("[^/]+")}$`));
  }
}
for (const m of read("worker-configuration.d.ts").matchAll(/^\s*([A-Z][A-Z0-9_]*)\??:/gm)) IN_CODE.add(m[1]);
for (const m of read(".dev.vars.example").matchAll(/^([A-Z][A-Z0-9_]*)=/gm)) IN_CODE.add(m[1]);

/** Every key and every name-like string of the served document: the API's own names. */
const API_NAMES = new Set();
(function collect(value) {
  if (Array.isArray(value)) value.forEach(collect);
  else if (value && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      API_NAMES.add(key);
      collect(inner);
    }
  } else if (typeof value === "string" && /^[\w$.-]+$/.test(value)) API_NAMES.add(value);
})(JSON.parse(read("clients/typescript/openapi.json")));

const PACKAGE = JSON.parse(read("package.json"));
/** Packages a module specifier may start with (`hono/client`, `museum-api-client/gate`). */
const PACKAGES = new Set([
  ...Object.keys({ ...PACKAGE.dependencies, ...PACKAGE.devDependencies }),
  ...PACKAGE.workspaces.map((dir) => JSON.parse(read(`${dir}/package.json`)).name),
]);

/** Every package of the lockfiles (the project's, the bench's, the client generator's). */
const LOCKED = new Set(
  ["package-lock.json", "bench/package-lock.json", "clients/typescript/generator/package-lock.json"].flatMap((lock) =>
    Object.keys(JSON.parse(read(lock)).packages).flatMap((key) => /node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(key)?.[1] ?? []),
  ),
);

/**
 * The database's tables, indexes and triggers after every migration, and
 * those a migration dropped for good, each with the migration that created
 * it. Dropping a table drops its indexes and triggers (SQLite).
 */
function schema() {
  const live = new Map();
  const dropped = new Map();
  const drop = (name) => {
    if (!live.has(name)) return;
    dropped.set(name, live.get(name));
    live.delete(name);
    for (const [other, object] of live) if (object.table === name) drop(other);
  };
  const statement =
    /\bCREATE\s+(?:UNIQUE\s+)?(TABLE|INDEX|TRIGGER|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)(?:(?:\s+AS\b|\s*\()|[\s\S]*?\bON\s+(\w+))?|\bDROP\s+(TABLE|INDEX|TRIGGER|VIEW)\s+(?:IF\s+EXISTS\s+)?(\w+)|\bALTER\s+TABLE\s+(\w+)\s+RENAME\s+TO\s+(\w+)/gi;
  for (const file of MIGRATIONS) {
    const sql = read(file).replace(/--.*$/gm, "");
    for (const [, kind, name, table, , droppedName, from, to] of sql.matchAll(statement)) {
      if (kind) {
        dropped.delete(name);
        live.set(name, { kind: kind.toLowerCase(), table, file });
      } else if (droppedName) drop(droppedName);
      else {
        live.set(to, { ...live.get(from) });
        live.delete(from);
        dropped.delete(to);
        for (const object of live.values()) if (object.table === from) object.table = to;
      }
    }
  }
  return { live, dropped };
}
const SCHEMA = schema();
const DATABASE_WORDS = new Set([...MIGRATIONS.map(read), ...CODE, read("wrangler.toml")].flatMap((text) => text.match(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g) ?? []));

/**
 * A page's inline code spans, its prose (the lines without their code spans)
 * and the lines of its fenced blocks with each block's info string, all with
 * line numbers.
 */
function parse(page) {
  const spans = [];
  const prose = [];
  const blocks = [];
  let block = null;
  for (const [i, line] of read(page).split("\n").entries()) {
    const fence = /^\s*```(.*)$/.exec(line);
    if (fence) {
      if (block) block = null;
      else blocks.push((block = { info: fence[1], lines: [] }));
    } else if (block) block.lines.push({ text: line, line: i + 1 });
    else {
      for (const m of line.matchAll(/`([^`]+)`/g)) spans.push({ token: m[1].trim(), line: i + 1 });
      prose.push({ text: line.replace(/`[^`]*`/g, " "), line: i + 1 });
    }
  }
  return { spans, prose, blocks };
}
const PAGE = Object.fromEntries(PAGES.map((page) => [page, parse(page)]));
/** Files the pages' sessions write (```js file=receiver.mjs). */
const SESSION_FILES = new Set(
  Object.values(PAGE).flatMap(({ blocks }) => blocks.flatMap(({ info }) => /\bfile=(\S+)/.exec(info)?.[1].split("/").pop() ?? [])),
);

/** A glob (`*`, `{a,b}`, `<name>`) as the source of a regular expression. */
function globSource(glob) {
  const escape = (text) => text.replace(/[.+?^$()|[\]\\]/g, "\\$&");
  return glob.replace(/\*|<[^>]*>|\{[^}]*\}|[^*<{]+/g, (part) => {
    if (part === "*") return "[^/]*";
    if (part.startsWith("<")) return "[^/]+";
    if (part.startsWith("{")) return `(?:${part.slice(1, -1).split(",").map(escape).join("|")})`;
    return escape(part);
  });
}

function pathExists(path) {
  if (!/[*<{]/.test(path) && TOP_LEVEL.has(path.split("/")[0]) && existsSync(join(ROOT, path))) return true;
  const pattern = new RegExp(`^(?:.*/)?${globSource(path)}$`);
  if (REPOSITORY.some((p) => pattern.test(p))) return true;
  const name = path.split("/").pop();
  return SESSION_FILES.has(name) || CODE_STRINGS.some((pattern) => pattern.test(name));
}

const FILE_NAME = /\.(ts|mts|mjs|js|json|md|sql|toml|yaml|png|txt|sh)$/;

/** What a code span names: a path, an npm script, a package, a code name or a database name; null for anything else. */
function classify(token) {
  const npm = /^npm (?:run(?:-script)?(?: -s)? ([\w:][\w:-]*)|(test))\b/.exec(token);
  if (npm) return { kind: "script", name: npm[1] ?? npm[2] };
  const scoped = /^(@[\w.-]+\/[\w.-]+)(?:\/\S*)?$/.exec(token);
  if (scoped) return { kind: "package", name: scoped[1] };
  if (/\s|:\/\/|\$|^[/@]|^\.\./.test(token)) return null;
  const call = /^([A-Za-z_$][\w$]*)(?:<[^>]*>)?\(.*\)?$/.exec(token);
  if (call) return { kind: "code", name: call[1] };
  const [top] = token.split("/");
  if (token.includes("/") && PACKAGES.has(top)) return null;
  if (token.includes("/") ? TOP_LEVEL.has(top) || FILE_NAME.test(token) || /^[a-z0-9-]+\/$/.test(token) : FILE_NAME.test(token) && !token.startsWith(".")) {
    return { kind: "path", name: token };
  }
  const name = /^([A-Za-z_$][\w$]*)(?:<[^>]*>)?$/.exec(token)?.[1];
  if (!name) return null;
  if (/^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/.test(name)) return { kind: "database", name };
  const camel = /^[a-z][a-z0-9]*[A-Z]/.test(name);
  const pascal = /^[A-Z][a-z0-9]+[A-Z][a-z0-9]/.test(name);
  const upperSnake = /^[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]$/.test(name);
  return camel || pascal || upperSnake ? { kind: "code", name } : null;
}

const otherSystemsUsed = new Set();
function exists({ kind, name }) {
  if (Object.hasOwn(OTHER_SYSTEMS, name)) {
    otherSystemsUsed.add(name);
    return true;
  }
  if (kind === "script") return Object.hasOwn(PACKAGE.scripts, name);
  if (kind === "path") return pathExists(name);
  if (kind === "package") return LOCKED.has(name);
  if (kind === "database") return !SCHEMA.dropped.has(name) && DATABASE_WORDS.has(name);
  return IN_CODE.has(name) || API_NAMES.has(name);
}

/** Repository paths written as plain words: from a top-level folder, not part of a URL or another path. */
const PLAIN_PATH = new RegExp(
  `(?<![\\w$./:-])(?:${[...TOP_LEVEL].filter((name) => !SKIP_DIRS.has(name)).map((name) => name.replace(/\./g, "\\.")).join("|")})/[\\w./<>*{},-]*[\\w/>*}]`,
  "g",
);

/**
 * Every name of a page: its code spans; the npm scripts its fenced blocks
 * run; the repository paths of its prose and fenced blocks; its relative
 * links (as paths from the root).
 */
function namesOf(page) {
  const { spans, prose, blocks } = PAGE[page];
  const fencedLines = blocks.flatMap(({ lines }) => lines);
  const scripts = fencedLines.flatMap(({ text, line }) =>
    [...text.matchAll(/\bnpm (?:run(?:-script)?(?: -s)? [\w:][\w:-]*|test)\b/g)].map((m) => ({ token: m[0], line })),
  );
  const paths = [...prose, ...fencedLines].flatMap(({ text, line }) =>
    [...text.matchAll(PLAIN_PATH)].map((m) => ({ token: m[0].replace(/[.,]+$/, ""), line, kind: "path" })),
  );
  const links = prose.flatMap(({ text, line }) =>
    [...text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)]
      .filter((m) => !/^[a-z]+:/.test(m[1]))
      .map((m) => ({ token: relative(ROOT, join(ROOT, dirname(page), m[1])), line, kind: "path" })),
  );
  return [...spans, ...scripts, ...paths, ...links];
}

test("every path, npm script, code name, package and database name the pages name exists", () => {
  const missing = new Set();
  for (const page of PAGES) {
    for (const { token, line, kind } of namesOf(page)) {
      const what = kind ? { kind, name: token } : classify(token);
      if (what && !exists(what)) missing.add(`${page}:${line}: ${what.kind} \`${what.name}\``);
    }
  }
  assert.deepEqual([...missing], [], `names of nothing:\n${[...missing].join("\n")}`);
  const unused = Object.keys(OTHER_SYSTEMS).filter((name) => !otherSystemsUsed.has(name));
  assert.deepEqual(unused, [], "OTHER_SYSTEMS names no page needs");
});

test("every folder of src/ is on the README's layout and on docs/architecture.md", () => {
  const folders = readdirSync(join(ROOT, "src"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${entry.name}/`);
  const layout = PAGE["README.md"].blocks.find(({ lines }) => lines.some(({ text }) => text.startsWith("src/")));
  assert.ok(layout, "the README's layout: a fenced block that starts a line with src/");
  const onLayout = (folder) => layout.lines.some(({ text }) => new RegExp(`(?:^|\\s)${folder.replace(".", "\\.")}`).test(text));
  const onArchitecture = (folder) => PAGE["docs/architecture.md"].spans.some(({ token }) => token.startsWith(folder));
  assert.deepEqual(folders.filter((folder) => !onLayout(folder)), [], "folders of src/ missing from the README's layout");
  assert.deepEqual(folders.filter((folder) => !onArchitecture(folder)), [], "folders of src/ docs/architecture.md does not name");
});

test("a migration cited about triggers still creates a trigger that no later migration dropped", () => {
  const withLiveTriggers = new Set([...SCHEMA.live.values()].filter(({ kind }) => kind === "trigger").map(({ file }) => file.slice("migrations/".length, "migrations/".length + 4)));
  const wrong = [];
  for (const page of PAGES) {
    const prose = read(page).replace(/^\s*```[\s\S]*?^\s*```/gm, "");
    for (const sentence of prose.split(/(?<=[.!?])\s+|\n\s*\n/)) {
      if (!/trigger/i.test(sentence) || /cron trigger/i.test(sentence)) continue;
      for (const m of sentence.matchAll(/migrations\/(\d{4})_[\w-]+\.sql|\bmigrations? `?(\d{4})\b/g)) {
        const number = m[1] ?? m[2];
        if (!withLiveTriggers.has(number)) wrong.push(`${page}: migration ${number} in "${sentence.replace(/\s+/g, " ").trim()}"`);
      }
    }
  }
  assert.deepEqual(wrong, [], "migrations cited for triggers they no longer hold");
});
