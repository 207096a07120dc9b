// The features' statement builders (src/*/statements.ts) for the scripts and
// the bench, so that a tool writes the database exactly as the Worker does
// and no table is named in SQL outside its owner (docs/architecture.md).
// The builders are bundled for Node (src-modules.mjs), called with a recording `Db`,
// and each statement is rendered as SQL text with its values inlined as
// literals, for `wrangler d1 execute --command/--file` (which binds nothing).
import { srcModules } from "./src-modules.mjs";
import { ROOT } from "./wrangler.mjs";

/**
 * The statements modules the tools use, by the name they are exported under
 * (several modules' exports under one name: the tickets' statements by
 * concern, or the one file an older checkout has).
 */
const MODULES = {
  accounts: ["./src/accounts/statements.ts"],
  categories: ["./src/categories/statements.ts"],
  events: ["./src/events/statements.ts"],
  hours: ["./src/hours/statements.ts"],
  tickets: [
    "./src/tickets/statements.ts",
    "./src/tickets/statements/sale.ts",
    "./src/tickets/statements/places.ts",
    "./src/tickets/statements/admission.ts",
  ],
  sql: ["sql-template-tag"],
};

/**
 * The builders: `{ accounts, categories, events, hours, tickets, sql }`, each a module's
 * exports (`sql` is sql-template-tag's, for wrapping a read fragment in a
 * SELECT), of this repository or of another checkout (`root`: the bench's
 * "before", which may lack a module: its SQL was elsewhere then).
 */
export function statements(root = ROOT) {
  return srcModules(MODULES, root);
}

/**
 * A `Db` for the builders that records instead of running: `prepare(text)
 * .bind(...values)` gives `{ text, values }`, which `renderStatement` turns
 * into SQL text.
 */
export const recordingDb = Object.freeze({
  prepare(text) {
    return {
      bind: (...values) => ({ text, values }),
    };
  },
  batch() {
    throw new Error("the recording Db runs nothing: render its statements and run them with wrangler");
  },
});

/** The longest string literal rendered in one piece. */
const LITERAL_PIECE = 1000;

/**
 * One bound value as an SQL literal, as D1 binds it: a string (quotes
 * doubled), a finite number, null, a boolean as 1 or 0. Anything else
 * (undefined, NaN, bigint, objects, bytes) is refused rather than guessed.
 */
export function sqlLiteral(value) {
  if (value === null) return "NULL";
  if (typeof value === "boolean") return value ? "1" : "0";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`cannot render ${value} as an SQL literal`);
    if (Number.isInteger(value)) {
      if (!Number.isSafeInteger(value)) throw new TypeError(`cannot render ${value} exactly as an SQL integer`);
      return String(value);
    }
    // The shortest text that reads back as the same double; SQLite reads 1e-7 and 0.1 as reals.
    return String(value);
  }
  if (typeof value === "string") {
    if (value.includes("\0")) throw new TypeError("cannot render a NUL character in an SQL string literal");
    const quote = (text) => `'${text.replaceAll("'", "''")}'`;
    if (value.length <= LITERAL_PIECE) return quote(value);
    // A long text as short literals joined by ||: the same value, and wrangler's
    // statement splitter takes time quadratic in a literal's length.
    const pieces = [];
    for (let at = 0; at < value.length; ) {
      let end = Math.min(at + LITERAL_PIECE, value.length);
      // Never between the two halves of a surrogate pair.
      if (end < value.length && /[\uD800-\uDBFF]/.test(value[end - 1])) end -= 1;
      pieces.push(quote(value.slice(at, end)));
      at = end;
    }
    return `(${pieces.join(" || ")})`;
  }
  throw new TypeError(`cannot render ${value === undefined ? "undefined" : `a value of type ${typeof value}`} as an SQL literal`);
}

const COMPOUND_WORDS = new Set(["CASE", "BEGIN", "END"]);

/**
 * SQL text with each `?` placeholder replaced by its value's literal. The text
 * is scanned as SQLite reads it: a `?` inside a string literal, a quoted
 * identifier or a comment is not a placeholder, and any of those (or a
 * numbered `?NNN`, or a count of placeholders that differs from the values)
 * fails loudly instead of being rendered wrongly.
 */
export function renderSql(text, values = []) {
  let out = "";
  let next = 0;
  let i = 0;
  const fail = (why) => {
    throw new Error(`cannot render this statement: ${why}\n${text}`);
  };
  while (i < text.length) {
    const c = text[i];
    const closing = c === "'" ? "'" : c === '"' ? '"' : c === "`" ? "`" : c === "[" ? "]" : null;
    let end = -1;
    if (closing) {
      // A quoted run ends at the next closing quote ('' and "" are a quote inside it).
      end = i + 1;
      for (;;) {
        end = text.indexOf(closing, end);
        if (end === -1) fail(`an unterminated ${c}…${closing}`);
        if (closing !== "]" && text[end + 1] === closing) end += 2;
        else break;
      }
      end += 1;
    } else if (c === "-" && text[i + 1] === "-") {
      end = text.indexOf("\n", i);
      if (end === -1) end = text.length;
    } else if (c === "/" && text[i + 1] === "*") {
      end = text.indexOf("*/", i + 2);
      if (end === -1) fail("an unterminated comment");
      end += 2;
    }
    if (end !== -1) {
      const run = text.slice(i, end);
      if (run.includes("?")) fail(`a "?" inside ${run}, which is not a placeholder`);
      out += run;
      i = end;
      continue;
    }
    if (c === "?") {
      if (/[0-9]/.test(text[i + 1] ?? "")) fail("a numbered placeholder (?NNN)");
      if (next >= values.length) fail(`more placeholders than the ${values.length} values`);
      out += sqlLiteral(values[next]);
      next += 1;
    } else if ((c === ":" || c === "@" || c === "$") && /[A-Za-z0-9_]/.test(text[i + 1] ?? "")) {
      fail(`a named parameter at ${text.slice(i, i + 20)}`);
    } else if (/[A-Za-z_]/.test(c) && !/[A-Za-z0-9_$]/.test(text[i - 1] ?? "")) {
      const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(text.slice(i, i + 64))[0];
      // wrangler's statement splitter (src/d1/splitter.ts) takes CASE and BEGIN
      // as the start of a compound and a case-sensitive END as its end only
      // between blanks: with "(CASE … END)" it would miss the end, and glue
      // every later statement into this one. Blanks around them change no meaning.
      out += COMPOUND_WORDS.has(word.toUpperCase()) ? ` ${word.toUpperCase()} ` : word;
      i += word.length;
      continue;
    } else {
      out += c;
    }
    i += 1;
  }
  if (next !== values.length) fail(`${values.length} values for ${next} placeholders`);
  return out;
}

/**
 * The SQL text of a recorded statement: a `Step` (its `statement`), a
 * recorded `{ text, values }`, or an sql-template-tag `Sql` (`{ sql, values }`).
 */
export function renderStatement(statement) {
  // A Step has a reader; an Sql has a `statement` (Oracle's :1) and a `text` (PostgreSQL's $1) of its own.
  const recorded = typeof statement?.read === "function" ? statement.statement : statement;
  if (Array.isArray(recorded?.strings) && typeof recorded?.sql === "string") return renderSql(recorded.sql, recorded.values);
  if (typeof recorded?.text === "string" && Array.isArray(recorded?.values)) return renderSql(recorded.text, recorded.values);
  throw new TypeError("not a recorded statement, a Step or an Sql");
}

/** Statements (Steps, recorded statements or Sql) as one script for `wrangler d1 execute --file/--command`. */
export function sqlScript(statements) {
  return statements.map((s) => `${renderStatement(s).trim()};\n`).join("");
}
