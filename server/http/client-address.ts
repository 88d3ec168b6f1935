import { isIPv4, isIPv6 } from 'node:net';

export interface ProxySettings {
  /** TRUST_PROXY: a reverse proxy in front of the server appends the caller's address to X-Forwarded-For. */
  trustProxy: boolean;
  /** PROXY_HOPS: how many such proxies there are in a row (each appends one entry). */
  proxyHops: number;
}

/**
 * The caller's address, for limits that key on it. Without a trusted proxy it is the socket's peer. Behind
 * `proxyHops` proxies it is the entry that many places from the right of X-Forwarded-For: everything left of
 * it was written by the client and proves nothing, which is why the left-most entry must never be used.
 * IPv6 addresses are cut to their /64 network, the smallest block one subscriber is usually given, so that
 * one attacker does not get 2^64 fresh addresses.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, proxy: ProxySettings): string {
  let address = peer;
  if (proxy.trustProxy && forwardedFor) {
    const hops = forwardedFor
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    if (hops.length) address = hops[Math.max(0, hops.length - proxy.proxyHops)];
  }
  return normalizeAddress(address ?? '') || 'unknown';
}

/** IPv4 as is (also when IPv4-mapped), IPv6 as its /64 prefix; anything else (a garbled header) lowercased. */
export function normalizeAddress(raw: string): string {
  const address = raw
    .replace(/^\[|\](:\d+)?$/g, '')
    .replace(/%.*$/, '')
    .toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1];
  if (isIPv4(address)) return address;
  if (isIPv6(address)) return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
  return address.slice(0, 64);
}

function expandIPv6(address: string): string[] {
  const [head, tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((part) => (part.includes('.') ? part : part.replace(/^0+(?=.)/, '')));
}
