import ipaddr from "ipaddr.js";

/**
 * Which subscriber URLs are accepted (the contract's "Webhooks" URL rules):
 * absolute https, at most 2,048 characters, no user or password, and a host
 * that is a name other than `localhost` (`*.localhost`), or an IP literal of
 * a globally routable unicast address. `allowLoopback` (local development
 * only) also lets http and loopback hosts through; every other special range
 * stays refused.
 *
 * The host is checked as the WHATWG URL parser normalizes it, so every
 * spelling of an address (`0x7f.1`, `2130706433`, `[::ffff:127.0.0.1]`) is
 * judged by the address it means, and an IPv6 address that carries an IPv4
 * address (IPv4-mapped, IPv4-translated, NAT64 `64:ff9b::/96`, 6to4
 * `2002::/16`, the deprecated IPv4-compatible `::a.b.c.d`) by the IPv4
 * address inside. The host is then read as a resolver would: one trailing
 * dot dropped, a host with an empty label (`localhost..`) refused as
 * malformed. The ranges are ipaddr.js's (IANA's special-purpose
 * registries). Host names are not resolved: a Worker's fetch never reaches
 * private networks, and this refuses the literal forms a request forger
 * would type.
 */
export const MAX_URL_LENGTH = 2048;

export type UrlRuleOptions = { allowLoopback: boolean };

type Verdict = { ok: true; url: string } | { ok: false; reason: string };

/** What a host is for these rules: a public one, a loopback one, or any other special range. */
type HostClass = "public" | "loopback" | "special";

function ipv4Class(address: ipaddr.IPv4): HostClass {
  const range = address.range();
  if (range === "unicast") return "public";
  return range === "loopback" ? "loopback" : "special";
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR("2000::/3");
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR("64:ff9b::/96");
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR("2002::/16");
/** `::/96` holds `::`, `::1` and the deprecated IPv4-compatible addresses (RFC 4291 2.5.5.1). */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR("::/96");

const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/** The IPv4 address an IPv6 address carries in one of the embedding forms, or null. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = address.parts;
  const range = address.range();
  if (range === "ipv4Mapped" || range === "rfc6145" || address.match(NAT64_WELL_KNOWN)) return ipv4Of(p[6]!, p[7]!);
  if (address.match(SIX_TO_FOUR)) return ipv4Of(p[1]!, p[2]!);
  if (address.match(IPV4_COMPATIBLE) && range !== "loopback" && range !== "unspecified") return ipv4Of(p[6]!, p[7]!);
  return null;
}

function ipv6Class(address: ipaddr.IPv6): HostClass {
  const embedded = embeddedIpv4(address);
  if (embedded) return ipv4Class(embedded);
  const range = address.range();
  if (range === "loopback") return "loopback";
  // Only 2000::/3 is allocated for global unicast; the rest is reserved.
  return range === "unicast" && address.match(GLOBAL_UNICAST_V6) ? "public" : "special";
}

/**
 * The host as a resolver reads it: one trailing dot is the root label and
 * names the same host; any other empty label (`localhost..`, `a..b`, `.a`)
 * is no DNS name, so null. The URL parser has already lowercased the host,
 * decoded percent-escapes and read every numeric IPv4 spelling.
 */
function resolverHost(hostname: string): string | null {
  const host = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  return host.split(".").includes("") ? null : host;
}

function hostClass(host: string): HostClass {
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (host.startsWith("[") && host.endsWith("]")) {
    const literal = host.slice(1, -1);
    // An address we cannot read is not trusted.
    return ipaddr.IPv6.isValid(literal) ? ipv6Class(ipaddr.IPv6.parse(literal)) : "special";
  }
  // The URL parser has already turned every numeric IPv4 spelling into four decimal parts.
  return ipaddr.IPv4.isValidFourPartDecimal(host) ? ipv4Class(ipaddr.IPv4.parse(host)) : "public";
}

/** Checks a subscriber URL; on success returns it as the URL parser normalizes it. */
export function checkWebhookUrl(input: string, options: UrlRuleOptions): Verdict {
  if ([...input].length > MAX_URL_LENGTH) return { ok: false, reason: `Must be at most ${MAX_URL_LENGTH} characters.` };
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, reason: "Must be an absolute https URL." };
  }
  const http = url.protocol === "http:";
  if (url.protocol !== "https:" && !(http && options.allowLoopback)) {
    return { ok: false, reason: "Must be an absolute https URL." };
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, reason: "Must not carry a user name or password." };
  }
  const resolved = resolverHost(url.hostname);
  if (resolved === null) return { ok: false, reason: "Must have a host name without an empty label (`..`)." };
  const host = hostClass(resolved);
  if (host === "special" || (host === "loopback" && !options.allowLoopback)) {
    return { ok: false, reason: "Must not point at localhost or an IP address that is not globally routable unicast." };
  }
  if (url.href.length > MAX_URL_LENGTH) return { ok: false, reason: `Must be at most ${MAX_URL_LENGTH} characters.` };
  return { ok: true, url: url.href };
}
