// Modules of src/ for the Node tools, so that a tool reads and writes exactly
// as the Worker does (the statement builders, the configuration schema):
// bundled by esbuild for Node, once per process, set of modules and checkout,
// synchronously (esbuild's buildSync and a CommonJS bundle), so that callers
// need not be async.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { tempDir } from "./process-end.mjs";
import { ROOT } from "./wrangler.mjs";

const require = createRequire(import.meta.url);
const loaded = new Map();

/**
 * `modules` (`{ name: path }`, a path relative to the checkout, or a package
 * name, or a list of them whose exports go under one name) bundled for Node:
 * `{ name: its exports }`. `root`: this repository, or another checkout (the
 * bench's "before"), where a module that does not exist yet is left out.
 */
export function srcModules(modules, root = ROOT) {
  const key = JSON.stringify([root, modules]);
  if (loaded.has(key)) return loaded.get(key);
  const { buildSync } = require("esbuild");
  const dir = tempDir("museum-src-");
  const outfile = join(dir.path, "modules.cjs");
  buildSync({
    stdin: {
      contents: Object.entries(modules).map(([name, paths]) => entryOf(name, paths, root)).join("\n"),
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    outfile,
    logLevel: "warning",
  });
  loaded.set(key, require(outfile));
  dir.remove();
  return loaded.get(key);
}

/** The bundle's lines exporting `name`: the exports of those of `paths` that `root` has. */
function entryOf(name, paths, root) {
  const present = [paths].flat().filter((path) => !path.startsWith("./") || existsSync(join(root, path)));
  if (present.length === 0) return "";
  const parts = present.map((path, i) => `import * as ${name}${i} from ${JSON.stringify(path)};`);
  return `${parts.join("\n")}\nexport const ${name} = { ${present.map((_, i) => `...${name}${i}`).join(", ")} };`;
}
