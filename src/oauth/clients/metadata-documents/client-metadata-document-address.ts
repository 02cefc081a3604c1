import { isIP } from 'node:net';

// Client ID Metadata Documents, security considerations (SSRF): the server fetches a URL any client names, so it
// must never reach its own network. Every address a document host resolves to is checked here, and an IP-literal
// host the same way. Special-purpose ranges from the IANA IPv4 and IPv6 registries (RFC 6890).

interface Range {
  bytes: number[];
  prefix: number;
  name: string;
}

const v4 = (cidr: string, name: string): Range => {
  const [address, prefix] = cidr.split('/');
  return { bytes: address!.split('.').map(Number), prefix: Number(prefix), name };
};

const v6 = (cidr: string, name: string): Range => {
  const [address, prefix] = cidr.split('/');
  return { bytes: ipv6Bytes(address!)!, prefix: Number(prefix), name };
};

const IPV4_REFUSED: Range[] = [
  v4('0.0.0.0/8', 'this network'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'shared address space (CGNAT)'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'IETF protocol assignments'),
  v4('192.0.2.0/24', 'documentation'),
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'benchmarking'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'),
];

const IPV6_REFUSED: Range[] = [
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('::/96', 'IPv4-compatible'),
  v6('100::/64', 'discard-only'),
  // RFC 8215: a translator of the local network, whose prefix length (/48 to /96, RFC 6052 section 2.2) decides
  // where the IPv4 address sits, so there is no embedded address to check: the whole range is internal.
  v6('64:ff9b:1::/48', 'local-use NAT64'),
  // RFC 4380: Teredo tunnels to an IPv4 address through relays; a deprecated transition form no document lives on.
  v6('2001::/32', 'Teredo'),
  v6('2001:db8::/32', 'documentation'),
  v6('fc00::/7', 'unique local'),
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'site-local'),
  v6('ff00::/8', 'multicast'),
];

// IPv6 forms that carry an IPv4 address: the embedded address is what is reached, so it is checked instead.
const IPV4_MAPPED = v6('::ffff:0:0/96', 'IPv4-mapped');
// RFC 2765 section 2.1 (SIIT): ::ffff:0:a.b.c.d, which a stateless translator turns into a.b.c.d.
const IPV4_TRANSLATED = v6('::ffff:0:0:0/96', 'IPv4-translated');
const NAT64 = v6('64:ff9b::/96', 'NAT64');
const SIX_TO_FOUR = v6('2002::/16', '6to4');

/** Why `address` (an IP literal, IPv6 without brackets) must not be fetched from, or null when it is public. */
export function refusedAddressReason(address: string): string | null {
  const family = isIP(address);
  if (family === 4) return rangeOf(address.split('.').map(Number), IPV4_REFUSED);
  if (family !== 6) return 'not an IP address';
  const bytes = ipv6Bytes(address);
  if (!bytes) return 'not an IP address';
  if (inRange(bytes, IPV4_MAPPED) || inRange(bytes, NAT64)) return embedded(bytes.slice(12, 16), 'IPv4-mapped');
  if (inRange(bytes, IPV4_TRANSLATED)) return embedded(bytes.slice(12, 16), 'IPv4-translated');
  if (inRange(bytes, SIX_TO_FOUR)) return embedded(bytes.slice(2, 6), '6to4');
  return rangeOf(bytes, IPV6_REFUSED);
}

function embedded(ipv4: number[], form: string): string | null {
  const reason = rangeOf(ipv4, IPV4_REFUSED);
  return reason === null ? null : `${form} ${reason}`;
}

function rangeOf(bytes: number[], ranges: Range[]): string | null {
  return ranges.find((range) => inRange(bytes, range))?.name ?? null;
}

function inRange(bytes: number[], { bytes: network, prefix }: Range): boolean {
  if (bytes.length !== network.length) return false;
  for (let bit = 0; bit < prefix; bit += 8) {
    const width = Math.min(8, prefix - bit);
    const mask = (0xff << (8 - width)) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (network[bit / 8]! & mask)) return false;
  }
  return true;
}

/** The 16 bytes of an IPv6 address (with "::" and a trailing dotted IPv4 part), or null. */
function ipv6Bytes(address: string): number[] | null {
  const zoneless = address.split('%')[0]!;
  let text = zoneless;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const ipv4 = text.slice(lastColon + 1);
    if (isIP(ipv4) !== 4) return null;
    const [a, b, c, d] = ipv4.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string | undefined) => (part === undefined || part === '' ? [] : part.split(':'));
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill('0'), ...rest];
  for (const group of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    const value = parseInt(group, 16);
    tail.push(value >> 8, value & 0xff);
  }
  return tail;
}
