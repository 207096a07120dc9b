// The typed client as an integrator's TypeScript project sees it: a small
// consumer project per module resolution (NodeNext, Node16, bundler), with
// TypeScript's default `skipLibCheck` (unset: the client's declarations are
// checked too) and with `skipLibCheck: true` as many projects have it,
// compiles the client README's ```ts snippets as pasted, and a misspelt
// ticket type or body field must fail to compile (if the client's
// declarations did not resolve, everything would be `any` and the typo would
// pass). Run by `npm test` (node --test test/tools/).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../../tools/lib/wrangler.mjs";

const README = join(ROOT, "clients", "typescript", "README.md");
// Inside the repository's node_modules, so that `museum-api-client` (the
// workspace package), openapi-fetch and @types/node resolve as they would
// from an installed dependency.
const PROJECTS = join(ROOT, "node_modules", ".cache", "client-consumers");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

const CLIENT_IMPORT = /^import \{ (.+) \} from "museum-api-client";$/;

/**
 * The README's ```ts blocks as one program: their imports of the client
 * merged at the top, then each block nested in the one before it (later
 * snippets use earlier names such as `museum` and `ticket`).
 */
function readmeProgram(markdown) {
  const blocks = [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  assert.ok(blocks.length >= 4, "the client README has its ts snippets");
  const imported = new Set();
  const bodies = blocks.map((block) =>
    block
      .split("\n")
      .filter((line) => {
        if (!line.startsWith("import ")) return true;
        const names = CLIENT_IMPORT.exec(line);
        assert.ok(names, `a README snippet imports something other than the client: ${line}`);
        for (const name of names[1].split(",")) imported.add(name.trim());
        return false;
      })
      .join("\n"),
  );
  return `import { ${[...imported].join(", ")} } from "museum-api-client";\n${bodies.map((body) => `{\n${body}\n`).join("")}${"}\n".repeat(bodies.length)}`;
}

// What the snippets leave to the reader's own program: its screen, its scanner, its settings.
const READER_PARTS = `
declare function show(image: Uint8Array, etag: string | null): void;
declare function green(text: string): void;
declare function amber(text: string): void;
declare function red(text: string): void;
declare function retryOrCallStaff(status: number): void;
declare function mark(field: string, message: string): void;
declare function retryAfter(seconds: number): void;
declare const scannedText: string;
declare const baseUrl: string;
declare const password: string;
export {};
`;

const TYPO = `
import { createMuseumClient } from "museum-api-client";
const client = createMuseumClient({ baseUrl: "https://museum.example", username: "kiosk", password: "secret" });
await client.POST("/tickets", {
  // @ts-expect-error a ticket type the API does not have
  body: { ticketType: "genral", ticketDate: "2026-12-02", email: "visitor@example.com" },
});
await client.POST("/tickets/{ticketId}/cancellation", {
  params: { path: { ticketId: "9c9a8d2e-8b1f-4f1e-9b0a-3a1f2c4d5e6f" } },
  // @ts-expect-error a misspelt field where every field is optional (the service answers 400)
  body: { reson: "Visitor ill" },
});
await client.POST("/tickets/{ticketId}/cancellation", {
  params: { path: { ticketId: "9c9a8d2e-8b1f-4f1e-9b0a-3a1f2c4d5e6f" } },
  body: { reason: "Visitor ill" },
});
export {};
`;

const SETUPS = {
  NodeNext: { module: "NodeNext", moduleResolution: "NodeNext" },
  Node16: { module: "Node16", moduleResolution: "Node16" },
  bundler: { module: "ESNext", moduleResolution: "Bundler" },
};

/** A consumer's own settings besides its module resolution: TypeScript's defaults, or skipping the declarations' check. */
const LIB_CHECKS = {
  "skipLibCheck unset": {},
  "skipLibCheck: true": { skipLibCheck: true },
};

/**
 * Compiles `files` in a fresh consumer project with the module resolution
 * `name`; `options` adds or overrides compiler options. The README's first
 * snippet reads `process.env`, so the project has `@types/node` unless
 * `options.types` says otherwise (the README says so).
 */
function compile(name, files, options = {}) {
  const dir = join(PROJECTS, `${name}-${Object.keys(options).join("-") || "defaults"}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `consumer-${name.toLowerCase()}`, private: true, type: "module" }));
  const compilerOptions = { target: "ES2022", lib: ["ES2022", "DOM"], types: ["node"], strict: true, noEmit: true, ...SETUPS[name], ...options };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: Object.keys(files) }));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return spawnSync(process.execPath, [TSC, "-p", dir], { encoding: "utf8" });
}

describe("the typed client in a consumer project", () => {
  const program = readmeProgram(readFileSync(README, "utf8"));
  for (const name of Object.keys(SETUPS)) {
    for (const [libCheck, options] of Object.entries(LIB_CHECKS)) {
      it(`type-checks the README's snippets and refuses a typo under ${name}, ${libCheck}`, () => {
        const result = compile(name, { "readme.ts": `${READER_PARTS}${program}`, "typo.ts": TYPO }, options);
        assert.equal(result.status, 0, `tsc (${name}, ${libCheck}):\n${result.stdout}${result.stderr}`);
      });
    }
  }

  it("needs no Node types itself: a browser project (no @types/node) compiles calls, with the declarations checked", () => {
    const result = compile("bundler", { "typo.ts": TYPO }, { types: [] });
    assert.equal(result.status, 0, `tsc:\n${result.stdout}${result.stderr}`);
  });

  it("fails when a ticket type is misspelt without the expectation (the check can fail)", () => {
    const result = compile("NodeNext", { "typo.ts": TYPO.replace("// @ts-expect-error a ticket type the API does not have\n", "") });
    assert.notEqual(result.status, 0);
    assert.match(result.stdout, /genral/);
  });

  it("fails when a body field is misspelt without the expectation (request bodies are exact)", () => {
    const result = compile("NodeNext", {
      "typo.ts": TYPO.replace("// @ts-expect-error a misspelt field where every field is optional (the service answers 400)\n", ""),
    });
    assert.notEqual(result.status, 0);
    assert.match(result.stdout, /typo\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'never'/);
  });
});
