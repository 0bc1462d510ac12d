import { lookup } from 'node:dns/promises';
import { isIP, type Socket } from 'node:net';
import { buildConnector } from 'undici';
import type { AddressPolicy } from './address-policy.js';

/** The error code of a connection the address policy refused; such a connection is never retried. */
export const REFUSED_ADDRESS = 'EREFUSED_ADDRESS';

const refused = (message: string) => Object.assign(new Error(message), { code: REFUSED_ADDRESS });
const namedRefusal = (hostname: string) =>
  `${hostname} resolves to a private, loopback, link-local, metadata or reserved address`;

/**
 * An undici `connect` function that checks the address policy at connect time, on the address
 * actually connected to: a name is resolved here and the connection made to the checked
 * address (never resolved again), an IP literal in any spelling the URL parser accepts
 * (`2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]`) is checked as the address it is, and the
 * socket's remote address is checked once more when it connects. Every connection of a
 * download goes through here: the source, each redirect hop and each include.
 */
export function guardedConnector(
  policy: AddressPolicy,
  timeoutMs: number,
  /** The addresses of a name (the system resolver; tests give their own). */
  resolveName: (hostname: string) => Promise<string[]> = (name) =>
    lookup(name, { all: true }).then((list) => list.map((a) => a.address)),
): buildConnector.connector {
  const base = buildConnector({ timeout: timeoutMs });
  return (options, callback) => {
    const { hostname } = options;
    const resolved = isIP(hostname) ? Promise.resolve([hostname]) : resolveName(hostname);
    resolved.then(
      (addresses) => {
        const problem = addresses.map(policy).find((p) => p !== null);
        // A name's refusal does not tell what it resolved to (that would map a private network).
        if (problem) return callback(refused(isIP(hostname) ? problem : namedRefusal(hostname)), null);
        if (addresses.length === 0) return callback(new Error(`${hostname} has no address`), null);
        const servername = isIP(hostname) ? undefined : (options.servername ?? hostname);
        // Each checked address in turn (as Node's own connect would try them), never another one.
        const attempt = (at: number) =>
          base({ ...options, hostname: addresses[at], servername }, (err, socket) => {
            if (err || !socket) {
              if (at + 1 < addresses.length) return attempt(at + 1);
              return callback(err ?? new Error('no socket'), null);
            }
            const remote = (socket as Socket).remoteAddress;
            const late =
              remote === undefined
                ? 'the connection has no remote address'
                : policy(remote) && (isIP(hostname) ? policy(remote) : namedRefusal(hostname));
            if (late) {
              socket.destroy();
              return callback(refused(late), null);
            }
            callback(null, socket);
          });
        attempt(0);
      },
      (e: Error) => callback(e, null),
    );
  };
}
