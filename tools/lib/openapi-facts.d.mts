// Types of openapi-facts.mjs for the TypeScript tests that import it.
export type Json = Record<string, any>;
export declare const HTTP_METHODS: string[];
export declare function deref(doc: Json, value: Json | undefined): Json | undefined;
export declare function typeList(facts: Json): string[] | undefined;
export declare function documentFacts(doc: Json): Json;
