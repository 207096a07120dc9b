// No file in src/ over 350 lines: a file that grows past it holds more than
// one concern, and is split by concern (as tickets/statements/ is). The
// sources are read at build time by Vite, since workerd has no file system.
import { describe, expect, it } from "vitest";

const MAX_LINES = 350;

const SOURCES = import.meta.glob<string>("../../src/**/*", { query: "?raw", import: "default", eager: true });

/** `path: lines` for every file over `max` lines (a final newline ends the last line, not a new one). */
function longFiles(sources: Record<string, string>, max: number): string[] {
  return Object.entries(sources)
    .map(([path, source]) => [path.replace("../../", ""), source.split("\n").length - (source.endsWith("\n") ? 1 : 0)] as const)
    .filter(([, lines]) => lines > max)
    .map(([path, lines]) => `${path}: ${lines}`);
}

describe("the files of src/", () => {
  it("were read (TypeScript and the rest)", () => {
    expect(Object.keys(SOURCES)).toContain("../../src/tickets/statements/sale.ts");
    expect(Object.keys(SOURCES)).toContain("../../src/webhooks/example-event.json");
  });

  it(`are at most ${MAX_LINES} lines each`, () => {
    expect(longFiles(SOURCES, MAX_LINES)).toEqual([]);
  });
});

describe("the check itself", () => {
  it("counts lines as an editor does", () => {
    const files = { "../../src/a.ts": "1\n2\n3\n", "../../src/b.ts": "1\n2\n3", "../../src/c.ts": "1\n2\n3\n4\n" };
    expect(longFiles(files, 3)).toEqual(["src/c.ts: 4"]);
  });
});
