// Requests generated from the served document's own schemas (json-schema-faker,
// seeded; ./generated.ts), each judged by a JSON Schema validator against the
// same document: a schema-valid request may be refused only for a rule the
// document states (a 400 passes only when STATED names its field and message
// and the operation's documentation holds the words that state it; anything
// else means the document says less than the server enforces), and a
// schema-invalid one is 400. The first half of the operations; the second:
// generated-requests-2.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import { checkGeneratedRequests, type Document, loadServedDocument, STATED } from "./generated";

let doc: Document;
beforeAll(async () => {
  doc = await loadServedDocument();
});

describe("requests generated from the served document", () => {
  it("every rule the allow-list relies on is stated in the served document", async () => {
    const text = JSON.stringify(doc);
    for (const rule of STATED) expect(text, rule.text).toContain(JSON.stringify(rule.text).slice(1, -1));
  });

  it("a schema-valid request is refused only for a rule the document states; a schema-invalid one is 400 (first half of the operations)", async () => {
    await checkGeneratedRequests(1, 2);
  }, 120_000);
});
