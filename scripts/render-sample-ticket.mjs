#!/usr/bin/env node
// Renders the sample ticket cards in docs/ with the Worker's own code
// (src/ticket-image), bundled by esbuild for Node: the wasm and TTF imports become
// byte arrays, resvg-wasm runs under Node. Run it after changing the card layout.
//
//   node scripts/render-sample-ticket.mjs [outDir]   (default: docs)
//
// Writes ticket-sample.png (event ticket), ticket-sample-cancelled.png and
// ticket-sample-general.png (a card is an 80 mm receipt's 576 dots wide: the
// pictures are what a kiosk prints, dot for dot), signed with the documented
// local development key set (never a production key), and prints each code
// with its QR version and how both decoders read it.
import { build } from "esbuild";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseEnv } from "node:util";
import { exitOnHelp } from "../tools/lib/cli.mjs";
import { readingsOf } from "../tools/lib/ticket-qr.mjs";

exitOnHelp(`usage: node scripts/render-sample-ticket.mjs [outDir]   (default: docs)
Renders ticket-sample.png, ticket-sample-cancelled.png and ticket-sample-general.png.`);

const root = fileURLToPath(new URL("..", import.meta.url));
const outDir = join(root, process.argv[2] ?? "docs");

const tmp = mkdtempSync(join(tmpdir(), "ticket-sample-"));
const bundle = join(tmp, "qr.mjs");
try {
  await build({
    stdin: {
      contents: `export * from "./src/ticket-image/token.ts"; export * from "./src/configuration/code-keys.ts"; export * from "./src/ticket-image/code-keys.ts"; export * from "./src/ticket-image/card.ts"; export * from "./src/ticket-image/render.ts";`,
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    outfile: bundle,
    loader: { ".ttf": "binary", ".wasm": "binary" },
    logLevel: "warning",
  });
  const qr = await import(pathToFileURL(bundle).href);

  // The public local development key set of .dev.vars.example (samples only).
  const localKeys = parseEnv(readFileSync(join(root, ".dev.vars.example"), "utf8")).TICKET_CODE_KEYS;
  const signer = qr.codeSignerAt(qr.codeKeysFromEnv({ TICKET_CODE_KEYS: localKeys }), new Date());
  const event = {
    ticketId: "a54a57ca-36f8-421b-a6b4-2e8f26858a4c",
    ticketType: "event",
    ticketDate: "2023-09-05",
    category: "child",
    eventId: "3be6453c-03eb-4357-ae5a-984a0e574a54",
    confirmationCode: "ticket-event-9c55eg-8v82a",
    eventName:
      "Pirate Coding Workshop: Treasure Maps, Parrots and the Lost Art of Reading Other People's Code Under a Full Moon on the Old Harbour Pier — bring your own laptop, eye patch optional",
    categoryName: "Child",
    cancelled: false,
  };
  const samples = [
    ["ticket-sample.png", event],
    ["ticket-sample-cancelled.png", { ...event, cancelled: true }],
    [
      "ticket-sample-general.png",
      {
        ticketId: "b811f723-17b2-44f7-8952-24b03e43d8a9",
        ticketType: "general",
        ticketDate: "2023-09-07",
        category: "adult",
        confirmationCode: "ticket-general-e5e5c6-dce78",
        entryTime: "10:30",
        categoryName: "Adult",
        cancelled: false,
      },
    ],
  ];
  const write = async (name, png, code) => {
    writeFileSync(join(outDir, name), png);
    const readings = (await readingsOf(png)).map((r) => `${r.decoder} at ${r.width} px ${r.text === code ? "reads it" : "FAILS"}`);
    console.log(`${name}: ${png.byteLength} bytes; ${readings.join(", ")}`);
  };
  for (const [name, ticket] of samples) {
    const code = await qr.signTicketCode(ticket, signer);
    const png = await qr.renderTicketPng(ticket, code);
    const info = qr.buildTicketQr(code);
    console.log(`code ${code} (${code.length} chars): QR version ${info.version}, ${info.moduleCount}×${info.moduleCount} modules of ${qr.CARD.qrModule} px`);
    await write(name, png, code);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
