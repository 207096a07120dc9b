// The contract's subscriber URL rules, table-driven: the pure check, and the
// same cases through POST /v1.1/webhooks.
import { afterEach, describe, expect, it } from "vitest";
import { checkWebhookUrl } from "../../src/webhooks/url-rules";
import { api, expectValidationError } from "../support/helpers";
import { setTestVars } from "../support/worker";
import { unsubscribeAll } from "./helpers";

const long = (length: number) => `https://hooks.example/${"a".repeat(length - "https://hooks.example/".length)}`;

const ACCEPTED = [
  "https://hooks.example/museum",
  "https://hooks.example:8443/a/b?x=1#frag",
  "https://xn--mnchen-3ya.example/",
  "https://hooks.10.example/", // a name, not an address
  "https://8.8.8.8/hook",
  "https://1.1.1.1/",
  "https://172.32.0.1/", // just outside 172.16/12
  "https://11.0.0.1/",
  "https://192.169.0.1/",
  "https://169.255.0.1/",
  "https://100.63.255.255/", // just below 100.64/10
  "https://100.128.0.1/", // just above 100.64/10
  "https://198.20.0.1/", // just above 198.18/15
  "https://223.255.255.254/", // just below multicast
  "https://[2606:4700:4700::1111]/hook",
  "https://[2a00:1450:4001:81b::200e]/",
  "https://[2001:4860:4860::8888]/",
  "https://[::ffff:8.8.8.8]/", // IPv4-mapped public address
  "https://[64:ff9b::808:808]/", // NAT64 of 8.8.8.8
  "https://[2002:808:808::1]/", // 6to4 of 8.8.8.8
  "https://[::8.8.8.8]/", // deprecated IPv4-compatible form of 8.8.8.8
  long(2048),
];

/** Refused under every setting: not https-shaped, credentials, private and other special ranges. */
const REFUSED_ALWAYS = [
  "ftp://hooks.example/",
  "hooks.example/museum", // not absolute
  "/relative",
  "",
  "https://user:pass@hooks.example/",
  "https://user@hooks.example/",
  "https://0.0.0.0/",
  "https://0.1.2.3/",
  "https://10.1.2.3/",
  "https://172.16.0.1/",
  "https://172.31.255.255/",
  "https://192.168.1.1/",
  "https://169.254.169.254/latest/meta-data", // link-local (cloud metadata)
  "https://100.64.0.1/", // carrier-grade NAT
  "https://100.100.100.200/", // carrier-grade NAT (a cloud metadata address)
  "https://100.127.255.255/",
  "https://198.18.0.1/", // benchmarking
  "https://198.19.255.255/",
  "https://192.0.0.1/", // IETF protocol assignments
  "https://192.0.2.1/", // documentation
  "https://198.51.100.7/",
  "https://203.0.113.7/",
  "https://224.0.0.1/", // multicast
  "https://239.255.255.250/",
  "https://240.0.0.1/", // reserved
  "https://255.255.255.255/", // broadcast
  "https://[::]/",
  "https://[fc00::1]/",
  "https://[fd12:3456::1]/",
  "https://[fe80::1]/",
  "https://[febf::1]/",
  "https://[fec0::1]/", // deprecated site-local
  "https://[ff02::1]/", // multicast
  "https://[ff05::1:3]/",
  "https://[2001:db8::1]/", // documentation
  "https://[2001::1]/", // Teredo
  "https://[2001:2::1]/", // benchmarking
  "https://[100::1]/", // discard
  "https://[64:ff9b:1::a00:1]/", // local-use NAT64
  "https://[4000::1]/", // outside 2000::/3
  "https://[::ffff:10.0.0.1]/",
  "https://[::ffff:192.168.0.1]/",
  "https://[::ffff:169.254.169.254]/",
  "https://[::ffff:0:10.0.0.1]/", // IPv4-translated
  "https://[64:ff9b::a9fe:a9fe]/", // NAT64 of 169.254.169.254
  "https://[64:ff9b::a00:1]/", // NAT64 of 10.0.0.1
  "https://[2002:a00:1::]/", // 6to4 of 10.0.0.1
  "https://[2002:c0a8:101::1]/", // 6to4 of 192.168.1.1
  "https://[::10.0.0.1]/", // IPv4-compatible 10.0.0.1
  "https://[::100.64.0.1]/",
  "https://[::ffff:224.0.0.1]/",
  long(2049),
];

/**
 * Hosts with an empty label: a resolver reads one trailing dot as the root, but
 * `..` (or a leading dot) is no DNS name. Refused as malformed under every
 * setting, so a doubled dot cannot slip a loopback or numeric host past the
 * rules (`0x7f.0.0.1..` is not even normalized to an address by the URL parser).
 */
const MALFORMED_HOSTS = [
  "https://localhost../",
  "https://LOCALHOST../",
  "https://api.localhost../",
  "https://localhost.%2e/", // the same two dots, one percent-encoded
  "https://127.0.0.1../",
  "https://127.0.0.1.../",
  "https://0x7f.0.0.1../",
  "https://2130706433../",
  "https://10.0.0.1../",
  "https://hooks.example../",
  "https://hooks..example/",
  "https://.hooks.example/",
];

/** Refused in production, allowed with WEBHOOK_ALLOW_LOOPBACK (http is the same: only loopback may use it). */
const REFUSED_UNLESS_LOOPBACK_ALLOWED = [
  "http://hooks.example/museum",
  "https://localhost/",
  "https://LOCALHOST./",
  "https://api.localhost/",
  "https://127.0.0.1/",
  "https://127.255.255.254/",
  "https://2130706433/", // 127.0.0.1 as a number
  "https://0x7f.1/", // 127.0.0.1 in hex
  "https://0177.0.0.1/", // 127.0.0.1 in octal
  "https://[::1]/",
  "https://[0:0:0:0:0:0:0:1]/",
  "https://[::ffff:127.0.0.1]/", // IPv4-mapped loopback
  "https://[::ffff:7f00:1]/",
  "https://[::127.0.0.1]/", // IPv4-compatible loopback
  "https://[::ffff:0:127.0.0.1]/", // IPv4-translated loopback
  "https://[64:ff9b::7f00:1]/", // NAT64 of loopback
  "https://[2002:7f00:1::]/", // 6to4 of loopback
  "https://127.0.0.1./", // one trailing dot: the root label, the same host
  "https://0x7f.0.0.1./", // the URL parser drops the dot and reads the address
  "https://2130706433./",
  "https://localhost%2e/", // percent-encoded trailing dot
  "https://%6cocalhost/", // percent-encoded letter
];

describe("checkWebhookUrl (deployed rules)", () => {
  it.each(ACCEPTED)("accepts %s", (url) => {
    expect(checkWebhookUrl(url, { allowLoopback: false })).toMatchObject({ ok: true });
  });
  it.each([...REFUSED_ALWAYS, ...REFUSED_UNLESS_LOOPBACK_ALLOWED])("refuses %s", (url) => {
    expect(checkWebhookUrl(url, { allowLoopback: false })).toMatchObject({ ok: false, reason: expect.any(String) });
  });
  it.each(MALFORMED_HOSTS)("refuses %s as a malformed host", (url) => {
    expect(checkWebhookUrl(url, { allowLoopback: false })).toEqual({ ok: false, reason: expect.stringMatching(/empty label/) });
  });
  it("accepts a name with one trailing dot (the root label)", () => {
    expect(checkWebhookUrl("https://hooks.example./x", { allowLoopback: false })).toEqual({
      ok: true,
      url: "https://hooks.example./x",
    });
  });
});

describe("checkWebhookUrl with WEBHOOK_ALLOW_LOOPBACK (local development)", () => {
  it.each([...REFUSED_UNLESS_LOOPBACK_ALLOWED, "http://127.0.0.1:8788/hook", "http://localhost:3000/", "http://[::1]:9000/"])(
    "accepts %s",
    (url) => {
      expect(checkWebhookUrl(url, { allowLoopback: true })).toMatchObject({ ok: true });
    },
  );
  it.each([
    ...REFUSED_ALWAYS,
    ...MALFORMED_HOSTS,
    "http://10.0.0.1/",
    "http://[fd00::1]/",
    "http://user:pw@127.0.0.1/",
    "ftp://127.0.0.1/",
  ])(
    "still refuses %s",
    (url) => {
      expect(checkWebhookUrl(url, { allowLoopback: true })).toMatchObject({ ok: false });
    },
  );
});

describe("POST /v1.1/webhooks under production rules (WEBHOOK_ALLOW_LOOPBACK=false)", () => {
  afterEach(() => setTestVars());

  it.each([...REFUSED_UNLESS_LOOPBACK_ALLOWED, ...MALFORMED_HOSTS])("400 for %s", async (url) => {
    setTestVars({ WEBHOOK_ALLOW_LOOPBACK: "false" });
    await expectValidationError(await api("/v1.1/webhooks", { method: "POST", json: { url } }), "url");
  });

  it("accepts a public IPv6 literal and a NAT64 form of a public IPv4 address", async () => {
    setTestVars({ WEBHOOK_ALLOW_LOOPBACK: "false" });
    for (const url of ["https://[2606:4700:4700::1111]/hook", "https://[64:ff9b::808:808]/hook"]) {
      const res = await api("/v1.1/webhooks", { method: "POST", json: { url } });
      expect(res.status).toBe(201);
    }
    await unsubscribeAll();
  });
});

describe("POST /v1.1/webhooks applies the rules (the test Worker allows loopback)", () => {
  it.each([...REFUSED_ALWAYS, ...MALFORMED_HOSTS])(
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
