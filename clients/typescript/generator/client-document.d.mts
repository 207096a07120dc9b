// Types of client-document.mjs for the TypeScript tests that import it.
import type { Json } from "../../../tools/lib/openapi-facts.mjs";
export declare function clientDocument(doc: Json): Json;
