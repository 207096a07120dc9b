// Types of client-document.mjs for the TypeScript tests that import it.
import type { Json } from "../../../tools/lib/openapi-facts.mjs";
export declare function clientDocument(doc: Json): Json;
export declare const PROBLEM_TABLE_START: string;
export declare const PROBLEM_TABLE_END: string;
export declare function problemTable(doc: Json): string;
export declare function withProblemTable(readme: string, doc: Json): string;
