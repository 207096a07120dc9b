// The facts of an OpenAPI 3.1 document that a contract test compares: each
// operation's path, method, operationId, summary, tags, security, parameters,
// request body and responses (status codes, media types, and the schemas as
// types, formats, enum values, properties and required lists), and its
// webhooks. Descriptions and examples are left out. Plain JavaScript with no
// imports, so it runs in Node (scripts/test-reference.mjs) and in workerd
// (test/contract/reference.test.ts) alike.

export const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

/** Follows local `$ref`s (`#/components/...`); a `$ref`'s siblings win over its target's. */
export function deref(doc, value) {
  let current = value;
  for (let hops = 0; current && typeof current.$ref === "string"; hops++) {
    if (hops > 20) throw new Error(`$ref loop at ${current.$ref}`);
    const ref = current.$ref;
    if (!ref.startsWith("#/")) throw new Error(`non-local $ref ${ref}`);
    let target = doc;
    for (const part of ref.slice(2).split("/")) target = target?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (target === undefined) throw new Error(`unresolvable $ref ${ref}`);
    const { $ref: _ref, ...siblings } = current;
    current = { ...target, ...siblings };
  }
  return current;
}

/** The JSON types a schema's facts admit, as a list; undefined for "any type". */
export function typeList(facts) {
  return facts.type === undefined ? undefined : [facts.type].flat();
}

/** A type list as facts record it: one type as a string, several as a sorted list. */
function typeValue(types) {
  const unique = [...new Set(types)].sort();
  return unique.length === 1 ? unique[0] : unique;
}

function typesOf(schema) {
  if (schema.type !== undefined) return typeValue([schema.type].flat());
  if (Array.isArray(schema.enum)) return typeValue(schema.enum.map((v) => (v === null ? "null" : typeof v)));
  return undefined;
}

/**
 * Facts of several schemas merged as one object (allOf: properties and
 * required lists add up). What an earlier part says of a property stands; a
 * later part only adds to it: a `oneOf` branch that pins `ticketType` or
 * refuses `eventId` (a `false` schema) does not erase their types.
 */
function mergeAll(parts) {
  const merged = {};
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      if (key === "properties") {
        merged.properties = { ...merged.properties };
        for (const [name, facts] of Object.entries(value)) {
          merged.properties[name] = merged.properties[name] ? mergeAll([merged.properties[name], facts]) : facts;
        }
      } else if (key === "required") merged.required = [...new Set([...(merged.required ?? []), ...value])].sort();
      else merged[key] ??= value;
    }
  }
  return merged;
}

/**
 * Facts of a union (anyOf / oneOf) as what any branch may hold: types,
 * properties and enum values of all branches, required only what every
 * branch requires. `[T, null]` is T, nullable.
 */
function mergeUnion(branches) {
  const nonNull = branches.filter((b) => b.type !== "null");
  if (nonNull.length === 1 && branches.length === 2) {
    const only = nonNull[0];
    return { ...only, ...(only.type ? { type: typeValue([...typeList(only), "null"]) } : {}) };
  }
  const facts = {};
  if (branches.every((b) => b.type)) facts.type = typeValue(branches.flatMap(typeList));
  if (branches.every((b) => b.enum)) facts.enum = [...new Set(branches.flatMap((b) => b.enum))];
  const withProperties = branches.filter((b) => b.properties);
  if (withProperties.length > 0) facts.properties = Object.assign({}, ...withProperties.map((b) => b.properties));
  const required = branches.map((b) => b.required ?? []).reduce((a, b) => a.filter((name) => b.includes(name)));
  if (required.length > 0) facts.required = required;
  return facts;
}

/** The facts of one schema, `$ref`s, `allOf`, `anyOf` and `oneOf` resolved. */
function schemaFacts(doc, schema, depth = 0) {
  if (depth > 32) throw new Error("schema nested too deep (a $ref cycle?)");
  const resolved = deref(doc, schema) ?? {};
  const own = {};
  const type = typesOf(resolved);
  if (type) own.type = type;
  if (resolved.format !== undefined) own.format = resolved.format;
  if (Array.isArray(resolved.enum)) own.enum = resolved.enum;
  if (resolved.readOnly === true) own.readOnly = true;
  if (resolved.writeOnly === true) own.writeOnly = true;
  if (resolved.properties) {
    own.properties = Object.fromEntries(
      Object.entries(resolved.properties).map(([name, s]) => [name, schemaFacts(doc, s, depth + 1)]),
    );
  }
  if (Array.isArray(resolved.required) && resolved.required.length > 0) own.required = [...resolved.required].sort();
  if (resolved.items) own.items = schemaFacts(doc, resolved.items, depth + 1);
  const parts = [own, ...(resolved.allOf ?? []).map((s) => schemaFacts(doc, s, depth + 1))];
  const union = resolved.anyOf ?? resolved.oneOf;
  if (union) parts.push(mergeUnion(union.map((s) => schemaFacts(doc, s, depth + 1))));
  return mergeAll(parts);
}

function contentFacts(doc, content) {
  return Object.fromEntries(Object.entries(content ?? {}).map(([mediaType, c]) => [mediaType, schemaFacts(doc, c.schema)]));
}

/** Parameters (path-level ones included), sorted by location and name; header names in lower case. */
function parameterFacts(doc, pathItem, operation) {
  return [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]
    .map((raw) => deref(doc, raw))
    .map((p) => ({
      name: p.in === "header" ? String(p.name).toLowerCase() : p.name,
      in: p.in,
      required: p.required === true,
      schema: schemaFacts(doc, p.schema),
    }))
    .sort((a, b) => `${a.in}:${a.name}`.localeCompare(`${b.in}:${b.name}`));
}

function operationFacts(doc, path, method, pathItem, operation) {
  const body = deref(doc, operation.requestBody);
  return {
    method,
    path,
    operationId: operation.operationId,
    summary: operation.summary,
    tags: operation.tags ?? [],
    security: [...new Set((operation.security ?? doc.security ?? []).flatMap((r) => Object.keys(r)))].sort(),
    parameters: parameterFacts(doc, pathItem, operation),
    requestBody: body ? { required: body.required === true, content: contentFacts(doc, body.content) } : null,
    responses: Object.fromEntries(
      Object.entries(operation.responses ?? {}).map(([status, raw]) => [status, { content: contentFacts(doc, deref(doc, raw).content) }]),
    ),
  };
}

function operationsOfPaths(doc, paths) {
  return Object.entries(paths ?? {}).flatMap(([path, pathItem]) =>
    Object.entries(pathItem)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => operationFacts(doc, path, method, pathItem, operation)),
  );
}

/** Everything a contract comparison needs from an OpenAPI document, as plain JSON. */
export function documentFacts(doc) {
  return {
    version: doc.info?.version,
    securitySchemes: Object.fromEntries(
      Object.entries(doc.components?.securitySchemes ?? {}).map(([name, s]) => [name, { type: s.type, scheme: s.scheme }]),
    ),
    security: doc.security ?? [],
    tags: (doc.tags ?? []).map((t) => t.name),
    operations: operationsOfPaths(doc, doc.paths),
    // Webhooks keyed by name; each is the operation the API sends (its `path` is the webhook's name).
    webhooks: operationsOfPaths(doc, doc.webhooks),
  };
}
