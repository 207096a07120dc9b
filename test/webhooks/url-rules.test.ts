// The contract's subscriber URL rules, table-driven: the pure check, and the
// same cases through POST /v1.1/webhooks.
import { describe, expect, it } from "vitest";
import { checkWebhookUrl } from "../../src/webhooks/url-rules";
import { api, expectValidationError } from "../helpers";
import { unsubscribeAll } from "./helpers";

const long = (length: number) => `https://hooks.example/${"a".repeat(length - "https://hooks.example/".length)}`;

const ACCEPTED = [
  "https://hooks.example/museum",
  "https://hooks.example:8443/a/b?x=1#frag",
  "https://203.0.113.7/hook", // public (documentation) address
  "https://[2001:db8::1]/hook",
  "https://172.32.0.1/", // just outside 172.16/12
  "https://11.0.0.1/",
  "https://192.169.0.1/",
  "https://169.255.0.1/",
  "https://xn--mnchen-3ya.example/",
  long(2048),
];

const REFUSED = [
  "http://hooks.example/museum", // not https
  "ftp://hooks.example/",
  "hooks.example/museum", // not absolute
  "/relative",
  "",
  "https://user:pass@hooks.example/",
  "https://user@hooks.example/",
  "https://localhost/",
  "https://LOCALHOST./",
  "https://api.localhost/",
  "https://127.0.0.1/",
  "https://127.255.255.254/",
  "https://2130706433/", // 127.0.0.1 as a number
  "https://0x7f.1/", // 127.0.0.1 in hex
  "https://0177.0.0.1/", // 127.0.0.1 in octal
  "https://0.0.0.0/",
  "https://10.1.2.3/",
  "https://172.16.0.1/",
  "https://172.31.255.255/",
  "https://192.168.1.1/",
  "https://169.254.169.254/latest/meta-data", // link-local (cloud metadata)
  "https://[::1]/",
  "https://[::]/",
  "https://[0:0:0:0:0:0:0:1]/",
  "https://[fc00::1]/",
  "https://[fd12:3456::1]/",
  "https://[fe80::1]/",
  "https://[febf::1]/",
  "https://[::ffff:127.0.0.1]/", // IPv4-mapped loopback
  "https://[::ffff:7f00:1]/",
  "https://[::ffff:10.0.0.1]/",
  "https://[::ffff:192.168.0.1]/",
  long(2049),
];

describe("checkWebhookUrl (deployed rules)", () => {
  it.each(ACCEPTED)("accepts %s", (url) => {
    expect(checkWebhookUrl(url, { allowLoopback: false })).toMatchObject({ ok: true });
  });
  it.each(REFUSED)("refuses %s", (url) => {
    expect(checkWebhookUrl(url, { allowLoopback: false })).toMatchObject({ ok: false, reason: expect.any(String) });
  });
});

describe("checkWebhookUrl with WEBHOOK_ALLOW_LOOPBACK (local development)", () => {
  it.each(["http://127.0.0.1:8788/hook", "http://localhost:3000/", "http://[::1]:9000/", "https://127.0.0.1/", "http://hooks.example/"])(
    "accepts %s",
    (url) => {
      expect(checkWebhookUrl(url, { allowLoopback: true })).toMatchObject({ ok: true });
    },
  );
  it.each(["http://10.0.0.1/", "http://192.168.1.1/", "http://169.254.169.254/", "http://[fd00::1]/", "http://[fe80::1]/", "http://user:pw@127.0.0.1/", "ftp://127.0.0.1/"])(
    "still refuses %s",
    (url) => {
      expect(checkWebhookUrl(url, { allowLoopback: true })).toMatchObject({ ok: false });
    },
  );
});

describe("POST /v1.1/webhooks applies the rules (the test Worker allows loopback)", () => {
  it.each(REFUSED.filter((url) => !/localhost|127\.|\[::1\]|0x7f|2130706433|0177|\[0:0:0:0:0:0:0:1\]|7f00|ffff:127|^http:/i.test(url)))(
    "400 for %s",
    async (url) => {
      await expectValidationError(await api("/v1.1/webhooks", { method: "POST", json: { url } }), "url");
    },
  );

  it("stores the URL as the URL parser normalizes it", async () => {
    const res = await api("/v1.1/webhooks", { method: "POST", json: { url: "HTTPS://Hooks.Example:443/a/../b" } });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { url: string }).url).toBe("https://hooks.example/b");
    await unsubscribeAll();
  });
});
