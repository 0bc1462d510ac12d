// A stub DNS server on 127.0.0.1 for the dead-domain check's tests: the wire format is
// dns-packet's. It answers NXDOMAIN for the names given, an A record for every other name, or,
// silent, never answers at all.
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import dnsPacket from 'dns-packet';

export interface DnsStub {
  address: string;
  /** Every name asked, in order. */
  asked: string[];
  close(): Promise<void>;
}

const NXDOMAIN = 3;
const FLAGS = 0x0100 | 0x0080; // RD, RA

export async function startDnsStub(opts: { nxdomain?: string[]; silent?: boolean }): Promise<DnsStub> {
  const socket = createSocket('udp4');
  const asked: string[] = [];
  const dead = new Set(opts.nxdomain ?? []);
  socket.on('message', (message, peer) => {
    const query = dnsPacket.decode(message);
    const question = query.questions?.[0];
    if (!question) return;
    asked.push(question.name);
    if (opts.silent) return;
    const nx = dead.has(question.name.toLowerCase());
    const answer = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: FLAGS | (nx ? NXDOMAIN : 0),
      questions: query.questions,
      answers:
        nx || question.type !== 'A'
          ? []
          : [{ type: 'A', name: question.name, ttl: 60, class: 'IN', data: '192.0.2.1' }],
    });
    socket.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    asked,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
