#!/usr/bin/env node
// Prints the text of the QR code in a ticket image, as a gate scanner reads it:
//   npm run ticket:code -- ticket.png
// The path is relative to the directory npm was run from (npm sets INIT_CWD;
// the script itself runs in the repository root).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { runMain, UsageError } from "../tools/lib/cli.mjs";
import { readTicketCode } from "../tools/lib/ticket-qr.mjs";

const USAGE = "usage: npm run ticket:code -- <ticket.png>";

runMain(async (argv) => {
  if (argv.length !== 1 || argv[0].startsWith("-")) throw new UsageError(USAGE);
  process.stdout.write(`${readTicketCode(readFileSync(resolve(process.env.INIT_CWD ?? process.cwd(), argv[0])))}\n`);
}, USAGE);
