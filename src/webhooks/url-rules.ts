/**
 * Which subscriber URLs are accepted (the contract's "Webhooks" URL rules):
 * absolute https, at most 2,048 characters, no user or password, and a host
 * that is not `localhost` nor an IP literal of a private, loopback,
 * link-local, unique-local or unspecified range. `allowLoopback` (local
 * development only) also lets http and loopback hosts through; private
 * ranges stay refused.
 *
 * The host is checked as the WHATWG URL parser normalizes it, so every
 * spelling of an address (`0x7f.1`, `2130706433`, `[::ffff:127.0.0.1]`) is
 * judged by the address it means. Host names are not resolved: a Worker's
 * fetch never reaches private networks, and this refuses the literal forms
 * a request forger would type.
 */
export const MAX_URL_LENGTH = 2048;

export type UrlRuleOptions = { allowLoopback: boolean };

type Verdict = { ok: true; url: string } | { ok: false; reason: string };

function ipv4Octets(host: string): number[] | null {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return null;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

type Range = "loopback" | "private";

function ipv4Range([a, b]: number[]): Range | null {
  if (a === 127) return "loopback";
  if (a === 0) return "private"; // 0.0.0.0/8, "this host": reaches loopback on many systems
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 169 && b === 254) return "private"; // link-local
  return null;
}

/** The eight 16-bit groups of a normalized IPv6 literal (without brackets). */
function ipv6Groups(host: string): number[] | null {
  let text = host;
  // A trailing dotted quad (the parser writes IPv4-mapped addresses in hex,
  // but accept it anyway).
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const octets = ipv4Octets(dotted[1]!);
    if (!octets) return null;
    text = `${text.slice(0, dotted.index)}${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

function ipv6Range(groups: number[]): Range | null {
  const leadingZeros = groups.slice(0, 5).every((g) => g === 0);
  if (leadingZeros && groups[5] === 0xffff) {
    // IPv4-mapped (::ffff:a.b.c.d): judged as the IPv4 address it carries.
    return ipv4Range([groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff]);
  }
  if (groups.slice(0, 7).every((g) => g === 0)) {
    if (groups[7] === 1) return "loopback"; // ::1
    if (groups[7] === 0) return "private"; // :: unspecified
  }
  if ((groups[0]! & 0xfe00) === 0xfc00) return "private"; // fc00::/7 unique local
  if ((groups[0]! & 0xffc0) === 0xfe80) return "private"; // fe80::/10 link-local
  return null;
}

function hostRange(hostname: string): Range | null {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (host.startsWith("[") && host.endsWith("]")) {
    const groups = ipv6Groups(host.slice(1, -1));
    return groups ? ipv6Range(groups) : "private"; // an address we cannot read is not trusted
  }
  const octets = ipv4Octets(host);
  return octets ? ipv4Range(octets) : null;
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
  const range = hostRange(url.hostname);
  if (range === "private" || (range === "loopback" && !options.allowLoopback)) {
    return { ok: false, reason: "Must not point at localhost or a private, loopback or link-local address." };
  }
  if (url.href.length > MAX_URL_LENGTH) return { ok: false, reason: `Must be at most ${MAX_URL_LENGTH} characters.` };
  return { ok: true, url: url.href };
}
