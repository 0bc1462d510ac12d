import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestServer {
  url: string;
  requests: { path: string; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

/** A local HTTP server on port 0 answering with `handler`, recording every request. */
export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse, n: number) => void,
): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', headers: req.headers });
    handler(req, res, requests.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A bot-challenge vendor's verify endpoint (`CHALLENGE_VERIFY_URL` is its URL + `/siteverify`):
 * it accepts the token `good` sent with the secret `secret`, never answers a token `slow…`, and
 * keeps each form it was sent and each request whose asker went away unanswered (`dropped`).
 */
export async function startChallengeVerifier(secret: string) {
  const forms: string[] = [];
  const dropped: string[] = [];
  const server = await startServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      forms.push(body);
      const form = new URLSearchParams(body);
      if (form.get('response')?.startsWith('slow')) return res.on('close', () => dropped.push(body));
      const success = form.get('response') === 'good' && form.get('secret') === secret;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success }));
    });
  });
  return { ...server, forms, dropped };
}
