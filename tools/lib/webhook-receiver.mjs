// A webhook subscriber on a loopback port, for the end-to-end checks: it
// records every request (headers and the raw body, as a verifier needs it)
// and answers 202.
import { createServer } from "node:http";
import { freePort } from "./ports.mjs";

/** Starts a receiver; returns `{ port, received, close() }`, `received` in order of arrival. */
export async function startWebhookReceiver() {
  const received = [];
  const port = await freePort();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(202).end();
    });
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { port, received, close: () => server.close() };
}
