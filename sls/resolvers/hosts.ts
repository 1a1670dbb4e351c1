// Where a URL points, as the deploy checks see it: a public host, or this machine and private
// networks, which a deployed function cannot reach; and whether the deploy itself goes to a
// stand-in AWS on this machine (the rehearsal), the one case a stage may name this machine.
import { BlockList, isIP } from 'node:net';

/** Addresses that are not on the internet: this machine, private and link-local networks. */
const NOT_PUBLIC = new BlockList();
const IPV4_NOT_PUBLIC: readonly [string, number][] = [
  ['0.0.0.0', 8], // this network
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, the instance metadata service among them
  ['172.16.0.0', 12], // private
  ['192.168.0.0', 16], // private
];
const IPV6_NOT_PUBLIC: readonly [string, number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
];
for (const [address, prefix] of IPV4_NOT_PUBLIC) NOT_PUBLIC.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of IPV6_NOT_PUBLIC) NOT_PUBLIC.addSubnet(address, prefix, 'ipv6');
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** A URL's host without IPv6's brackets, lower-case; undefined when it is no URL. */
function hostOf(text: unknown): string | undefined {
  try {
    return new URL(String(text ?? '').trim()).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return undefined;
  }
}

const isLocalName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost');

/** Whether a host is this machine: a loopback address, or `localhost`. */
function isLoopbackHost(host: string): boolean {
  const family = isIP(host);
  if (family) return LOOPBACK.check(host, family === 6 ? 'ipv6' : 'ipv4');
  return isLocalName(host);
}

/**
 * Whether a host is on the internet. An address is, outside the networks above (an IPv4 address
 * written as IPv6 counts as IPv4). A name is not looked up: it is public unless it is
 * `localhost`, has no dot, or ends in `.localhost`, `.local` or `.internal`.
 */
function isPublicHost(host: string): boolean {
  const family = isIP(host);
  if (family) return !NOT_PUBLIC.check(host, family === 6 ? 'ipv6' : 'ipv4');
  return !(
    isLocalName(host) ||
    !host.includes('.') ||
    host.endsWith('.local') ||
    host.endsWith('.internal')
  );
}

/** Whether credentials sent to this URL go over TLS to the internet: https on a public host. */
export function isPublicHttpsUrl(text: unknown): boolean {
  const host = hostOf(text);
  return host !== undefined && /^https:/i.test(String(text).trim()) && isPublicHost(host);
}

/** Whether a URL's host is this machine. */
export function isLoopbackUrl(text: unknown): boolean {
  const host = hostOf(text);
  return host !== undefined && isLoopbackHost(host);
}

/**
 * The stand-in AWS this environment sends every AWS call to, when it is on this machine:
 * `AWS_ENDPOINT_URL` on loopback, and every service's own endpoint (`AWS_ENDPOINT_URL_<SERVICE>`)
 * on loopback too. Undefined otherwise: a deploy to AWS itself, or to anywhere else.
 */
export function awsStandIn(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (String(env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS ?? '').trim() === 'true') return undefined;
  const endpoint = String(env.AWS_ENDPOINT_URL ?? '').trim();
  if (!isLoopbackUrl(endpoint)) return undefined;
  const elsewhere = Object.entries(env).some(
    ([name, value]) =>
      name.startsWith('AWS_ENDPOINT_URL_') &&
      String(value ?? '').trim() !== '' &&
      !isLoopbackUrl(value),
  );
  return elsewhere ? undefined : endpoint;
}
