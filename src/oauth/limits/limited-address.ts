import { isIPv4, isIPv6 } from 'node:net';

/**
 * The address the failure limits count under: IPv4 as it is; IPv6 by its /64, since one subscriber is routinely
 * given a whole /64 and could otherwise make 2^64 fresh addresses to dodge a lockout; an IPv4-mapped IPv6
 * address (::ffff:192.0.2.1) as the IPv4 address it is. A port is dropped: some proxies write the client's
 * `X-Forwarded-For` entry as 192.0.2.1:51234 or [2001:db8::1]:51234 (Azure's do), and each new connection would
 * otherwise count as a fresh address. A request whose connection is already gone has no address (Node.js forgets
 * a destroyed socket's): all such count under one key.
 */
export function limitedAddress(ip: string | undefined): string {
  if (ip === undefined) return 'unknown';
  if (isIPv4(ip)) return ip;
  const withPort = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(ip) ?? /^\[([^[\]]+)\](?::\d+)?$/.exec(ip);
  if (withPort) return limitedAddress(withPort[1]!);
  const address = ip.split('%', 1)[0]!;
  if (!isIPv6(address)) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, lower case and without leading zeros. */
function expandIPv6(address: string): string[] {
  const [head = '', tail] = address.toLowerCase().split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  // A trailing dotted quad (::1.2.3.4) stands for two groups; only the first four groups matter here.
  const width = right.some((group) => group.includes('.')) ? 7 : 8;
  const middle = tail === undefined ? [] : Array.from({ length: width - left.length - right.length }, () => '0');
  return [...left, ...middle, ...right].map((group) => (group.includes('.') ? group : group.replace(/^0+(?=.)/, '')));
}
