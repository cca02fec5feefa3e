import { BlockList, isIP } from 'node:net';

/** A set of addresses and networks that answers whether an address is in it. */
export interface AddressList {
  has(address: string | undefined): boolean;
  readonly size: number;
}

/** `::ffff:192.0.2.1` → `192.0.2.1`: an IPv4 client on a dual-stack socket is matched as IPv4. */
function unmapped(address: string): string {
  const tail = address.startsWith('::ffff:') ? address.slice(7) : address;
  return isIP(tail) === 4 ? tail : address;
}

/**
 * Addresses and CIDRs (as server/config.ts validated them) matched with Node's own `net.BlockList`, the
 * maintained CIDR matcher of the platform, rather than hand-written bit arithmetic.
 */
export function createAddressList(entries: readonly string[]): AddressList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined)
      list.addAddress(unmapped(address), isIP(unmapped(address)) === 6 ? 'ipv6' : 'ipv4');
    else list.addSubnet(address, Number(bits), family);
  }
  return {
    size: entries.length,
    has(address) {
      if (address === undefined || entries.length === 0) return false;
      const a = unmapped(address);
      const family = isIP(a);
      return family !== 0 && list.check(a, family === 6 ? 'ipv6' : 'ipv4');
    },
  };
}
