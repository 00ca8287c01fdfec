import { BlockList, isIP } from 'node:net';

/**
 * Addresses a notification must not reach unless the server allows private targets (`--allow-private-targets`):
 * loopback, private (RFC 1918, ULA), link-local (which holds the cloud metadata service at 169.254.169.254 and
 * fd00:ec2::254), carrier-grade NAT, "this network", multicast and reserved ranges. IPv4-mapped IPv6 addresses are
 * checked as the IPv4 address they carry.
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['fd00:ec2::', 32],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

const MAPPED_IPV4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** True when `address` (an IP literal) is one notifications must not connect to. */
export function isBlockedAddress(address: string): boolean {
  const mapped = MAPPED_IPV4.exec(address);
  if (mapped) return BLOCKED.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Said with every refusal of a private target, when a channel is saved and when a notification is sent: the way out. */
export const PRIVATE_TARGETS_HINT =
  'notifications reach only public addresses unless the server runs with SVC_ALLOW_PRIVATE_TARGETS=true (or --allow-private-targets true), for local development';

/**
 * True for a host refused without asking DNS: an IP literal in a refused range, or a `localhost` name (always loopback,
 * RFC 6761). Other names are checked on the addresses DNS gives when connecting.
 */
export function isKnownPrivateHost(host: string): boolean {
  const bare = host
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (isIP(bare) !== 0) return isBlockedAddress(bare);
  return bare === 'localhost' || bare.endsWith('.localhost');
}
