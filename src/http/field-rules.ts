import type { z } from "@hono/zod-openapi";

/** Field name → the message of its refusal. */
type Messages = Readonly<Record<string, string>>;

/** What a rule between fields says: these fields are required, those refused (each with its message). */
type Effects = { required?: Messages; refused?: Messages };

/**
 * A rule between an object's fields, written once: the server checks it
 * (`withFieldRules`, one 400 entry per field) and the document states it in
 * JSON Schema.
 * - `variants`: `field` takes one of the values listed, each with its own
 *   required and refused fields (`oneOf`, one variant per value);
 * - `requiredUnless`: `field` is required unless `other` is given (`oneOf`:
 *   `other`, or `field` without `other`; `if`/`then` would say it too, but
 *   redocly's lint cannot see an `if`'s properties, json-schema-faker always
 *   takes the `then`, and openapi-typescript reads an `anyOf` as a union
 *   with the object itself);
 * - `requiredWith`: `field` is required when `other` is given (`dependentRequired`).
 */
export type FieldRule =
  | { variants: string; cases: readonly ({ is: string | boolean } & Effects)[] }
  | { requiredUnless: string; other: string; message: string }
  | { requiredWith: string; other: string; message: string };

type Fields = Record<string, unknown>;

/**
 * The rules' refusals of a value. A field refused by one rule counts as left
 * out for the others: `{ "closed": true, "entrySlotMinutes": 30 }` is told to
 * leave out `entrySlotMinutes`, not to add `slotCapacity` as well.
 */
function violations(rules: readonly FieldRule[], value: Fields): { field: string; message: string }[] {
  const found: { field: string; message: string }[] = [];
  const refused = new Set<string>();
  const cases = rules.flatMap((rule) => ("variants" in rule ? rule.cases.filter((c) => value[rule.variants] === c.is) : []));
  for (const { refused: fields = {} } of cases) {
    for (const [field, message] of Object.entries(fields)) {
      if (value[field] !== undefined) {
        found.push({ field, message });
        refused.add(field);
      }
    }
  }
  const given = (field: string) => value[field] !== undefined && !refused.has(field);
  for (const { required: fields = {} } of cases) {
    for (const [field, message] of Object.entries(fields)) if (!given(field)) found.push({ field, message });
  }
  for (const rule of rules) {
    if ("requiredUnless" in rule && !given(rule.requiredUnless) && !given(rule.other)) found.push({ field: rule.requiredUnless, message: rule.message });
    if ("requiredWith" in rule && !given(rule.requiredWith) && given(rule.other)) found.push({ field: rule.requiredWith, message: rule.message });
  }
  return found;
}

/** Where a rule's effects are said in JSON Schema: `required`, and `false` for a field that must be left out. */
function effectsSchema({ required = {}, refused = {} }: Effects) {
  return {
    ...(Object.keys(refused).length > 0 ? { properties: Object.fromEntries(Object.keys(refused).map((field) => [field, false])) } : {}),
    ...(Object.keys(required).length > 0 ? { required: Object.keys(required) } : {}),
  };
}

/** The rules in JSON Schema, as OpenAPI metadata of the object (several `oneOf` go into `allOf`). */
function jsonSchemaOf(rules: readonly FieldRule[]) {
  const dependentRequired: Record<string, string[]> = {};
  const parts: Record<string, unknown>[] = [];
  for (const rule of rules) {
    if ("requiredWith" in rule) (dependentRequired[rule.other] ??= []).push(rule.requiredWith);
    if ("requiredUnless" in rule) {
      parts.push({ oneOf: [{ required: [rule.other] }, { required: [rule.requiredUnless], properties: { [rule.other]: false } }] });
    }
    if ("variants" in rule) {
      const field = rule.variants;
      parts.push({
        oneOf: rule.cases.map((c) => {
          const effects = effectsSchema(c);
          return {
            properties: { [field]: { const: c.is }, ...effects.properties },
            required: [field, ...(effects.required ?? [])],
          };
        }),
      });
    }
  }
  return {
    ...(parts.length === 1 ? parts[0] : parts.length > 1 ? { allOf: parts } : {}),
    ...(Object.keys(dependentRequired).length > 0 ? { dependentRequired } : {}),
  };
}

/**
 * The object schema with its rules between fields: checked after its
 * fields (one issue per field, with every other failure), and stated in
 * the document.
 */
export function withFieldRules<T extends z.ZodObject>(schema: T, rules: readonly FieldRule[]): T {
  return schema
    .superRefine((value, ctx) => {
      for (const { field, message } of violations(rules, value as Fields)) ctx.addIssue({ code: "custom", path: [field], message });
    })
    .openapi(jsonSchemaOf(rules));
}
