import { bodyLimit as honoBodyLimit } from "hono/body-limit";
import { ProblemError } from "../../http/problem";

/** Refuses (413) a body over `maxSize` bytes. */
export function bodyLimit(maxSize: number) {
  // Counts the bytes actually read when no Content-Length is given; with one,
  // the runtime never hands the Worker more bytes than it declares.
  return honoBodyLimit({
    maxSize,
    onError: () => {
      throw new ProblemError(413, { detail: `The request body is over ${maxSize} bytes.` });
    },
  });
}
