#!/usr/bin/env node
// Prints the text of the QR code in a ticket image, as gate scanners read it
// (jsQR and ZXing, at its size and at receipt width; tools/lib/ticket-qr.mjs):
//   npm run ticket:code -- ticket.png
// The path is relative to the directory npm was run from (npm sets INIT_CWD;
// the script itself runs in the repository root). Under `npm run -s` a
// failure must still say what went wrong and which file it read, on stderr:
// the caller captures stdout into a variable and would go on with it empty.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { runMain, UsageError } from "../tools/lib/cli.mjs";
import { hasPngSignature } from "fast-png";
import { readTicketCode } from "../tools/lib/ticket-qr.mjs";

const USAGE = `usage: npm run ticket:code -- <ticket.png>
The path is relative to the directory you run npm from.`;

runMain(async (argv) => {
  if (argv.length !== 1 || argv[0].startsWith("-")) throw new UsageError("one image file is needed");
  const path = resolve(process.env.INIT_CWD ?? process.cwd(), argv[0]);
  let bytes;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new Error(`cannot read ${path}: ${error.code === "ENOENT" ? "no such file (ENOENT)" : error.message}`);
  }
  if (!hasPngSignature(new Uint8Array(bytes))) {
    const start = bytes.subarray(0, 200).toString("utf8");
    throw new Error(
      `${path} is not a PNG image${start.trimStart().startsWith("{") ? ` (curl saved an error answer? it starts: ${start.split("\n")[0]})` : ""}`,
    );
  }
  let code;
  try {
    code = await readTicketCode(bytes);
  } catch (error) {
    throw new Error(`${path}: ${error.message}`);
  }
  process.stdout.write(`${code}\n`);
}, USAGE);
