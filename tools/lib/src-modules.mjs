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
 * name) bundled for Node: `{ name: its exports }`. `root`: this repository,
 * or another checkout (the bench's "before"), where a module that does not
 * exist yet is left out.
 */
export function srcModules(modules, root = ROOT) {
  const key = JSON.stringify([root, modules]);
  if (loaded.has(key)) return loaded.get(key);
  const { buildSync } = require("esbuild");
  const dir = tempDir("museum-src-");
  const outfile = join(dir.path, "modules.cjs");
  buildSync({
    stdin: {
      contents: Object.entries(modules)
        .filter(([, path]) => !path.startsWith("./") || existsSync(join(root, path)))
        .map(([name, path]) => `export * as ${name} from ${JSON.stringify(path)};`)
        .join("\n"),
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
