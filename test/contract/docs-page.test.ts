// GET /docs (the API reference page) and its start-up script, inside workerd.
// The page itself is exercised in a real browser by scripts/docs-browser-test.mjs.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "../support/helpers";

describe("GET /docs", () => {
  it("is public HTML that loads only same-origin scripts, no inline ones", async () => {
    const res = await api("/docs", { as: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => /src="([^"]+)"/.exec(m[1]!)?.[1])).toEqual(["/docs/swagger-ui-bundle.js", "/docs/init.js"]);
    expect(scripts.every((m) => m[2]!.trim() === "")).toBe(true);
    expect([...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1])).toEqual(["/docs/swagger-ui.css"]);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it("has a Content-Security-Policy that allows this origin only", async () => {
    const csp = (await api("/docs", { as: null })).headers.get("Content-Security-Policy") ?? "";
    const directives = Object.fromEntries(
      csp.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]),
    );
    expect(directives["default-src"]).toEqual(["'none'"]);
    expect(directives["script-src"]).toEqual(["'self'"]);
    expect(directives["connect-src"]).toEqual(["'self'"]);
    expect(directives["frame-ancestors"]).toEqual(["'none'"]);
    expect(csp).not.toMatch(/https?:|\*|unsafe-eval/);
  });

  it("starts Swagger UI on the served OpenAPI document without the online validator", async () => {
    const res = await api("/docs/init.js", { as: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/javascript; charset=utf-8");
    const script = await res.text();
    const config = JSON.parse(/^SwaggerUIBundle\((\{.*\})\);$/m.exec(script)![1]!);
    expect(config).toMatchObject({ url: "/v1.1/openapi.json", dom_id: "#app", validatorUrl: null });
  });

  it("refuses other methods", async () => {
    const res = await api("/docs", { as: null, method: "POST" });
    expect(res.status).toBe(405);
  });
});

describe("GET /docs/ (with the slash)", () => {
  it.each([
    ["/docs/", "/docs"],
    ["/docs/?url=x&b=%2F", "/docs?url=x&b=%2F"],
  ])("redirects %s to %s, for GET and HEAD", async (path, location) => {
    for (const method of ["GET", "HEAD"]) {
      // `redirect: "manual"`: the Worker's fetch binding would follow it.
      const res = await exports.default.fetch(new Request(`https://museum.test${path}`, { method, redirect: "manual" }));
      expect(res.status).toBe(301);
      expect(res.headers.get("Location")).toBe(location);
      expect(res.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
      if (method === "HEAD") expect(await res.text()).toBe("");
    }
  });

  it("redirects only the page itself", async () => {
    expect((await api("/docs//", { as: null })).status).toBe(404);
    expect((await api("/docs/init.js/", { as: null })).status).toBe(404);
    expect((await api("/docs/", { as: null, method: "POST" })).status).toBe(405);
  });
});

describe("GET /v1.1/openapi.json", () => {
  it("is public", async () => {
    const res = await api("/v1.1/openapi.json", { as: null });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { openapi: string }).openapi).toBe("3.1.0");
  });
});
