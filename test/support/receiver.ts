import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a receiver was sent. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A real HTTP receiver on 127.0.0.1 (a client's back-channel logout URI, a CIBA notification
 * endpoint): it records each request, and answers with what `answer` says for it (its number,
 * from 1): a status, or 'hang' to hold it open.
 */
export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  answer: (n: number, request: Received) => number | 'hang';
  /** Resolves when `count` requests have come, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/receive'): Promise<Receiver> {
  const received: Received[] = [];
  const waiting: Array<() => void> = [];
  const hanging = new Set<() => void>();
  let server: Server;
  const receiver: Receiver = {
    url: '',
    received,
    answer: () => 200,
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < count) return false;
          resolve(received);
          return true;
        };
        if (check()) return;
        const timer = setTimeout(() => reject(new Error(`${received.length} of ${count} requests within ${timeoutMs} ms`)), timeoutMs);
        waiting.push(() => {
          if (check()) clearTimeout(timer);
        });
      });
    },
    close: () =>
      new Promise((resolve) => {
        for (const end of hanging) end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      const answer = receiver.answer(received.length, entry);
      for (const wake of waiting) wake();
      if (answer === 'hang') {
        const end = () => response.destroy();
        hanging.add(end);
        return;
      }
      response.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  (receiver as { url: string }).url = `http://127.0.0.1:${port}${path}`;
  return receiver;
}
