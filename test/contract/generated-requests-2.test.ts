// The second half of generated-requests.test.ts's operations, in a file (and
// so a runtime) of its own: ./generated.ts says why.
import { beforeAll, describe, it } from "vitest";
import { checkGeneratedRequests, loadServedDocument } from "./generated";

beforeAll(async () => {
  await loadServedDocument();
});

describe("requests generated from the served document", () => {
  it("a schema-valid request is refused only for a rule the document states; a schema-invalid one is 400 (second half of the operations)", async () => {
    await checkGeneratedRequests(2, 2);
  }, 120_000);
});
