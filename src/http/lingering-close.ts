import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * How long, and for how many bytes, a connection answered before its request's body arrived
 * is read on before it closes. A client sends its whole body before it reads the answer; a body
 * that takes longer or is larger is cut, as nginx's `lingering_time` cuts one.
 */
export const LINGER = { ms: 5_000, bytes: 16 * 1024 * 1024 };

/**
 * Lingering close (CONTRACT.md §7): an answer sent before the request's body has all arrived
 * (a 413 refused by its Content-Length, or once past the limit) closes the connection, as
 * Fastify asks; closing a socket while the client still sends makes the kernel answer with a
 * reset, which discards the answer the client has not read yet (it sees `ECONNRESET` or
 * `EPIPE`). So such a connection, once its answer is written, only stops sending (FIN), reads
 * on and drops the rest of the body, and closes when the body has ended, or after `LINGER`.
 */
export const lingeringClose = fp(
  async (app: FastifyInstance) => {
    // A callback hook, not an async one: every answer passes it, and nearly all go straight on.
    app.addHook('onSend', (request, _reply, payload, done) => {
      const incoming = request.raw;
      if (incoming.complete || incoming.httpVersionMajor !== 1) return done(null, payload);
      // Read by this listener, not dropped unseen by Node's HTTP parser (IncomingMessage#_dump), the
      // rest of the body is counted.
      const drained = { bytes: 0 };
      incoming.on('data', (chunk: Buffer) => {
        drained.bytes += chunk.length;
      });
      const socket = incoming.socket;
      // Node closes a connection whose answer says `Connection: close` by socket.destroySoon()
      // once the answer is written: this connection does it by lingering instead.
      socket.destroySoon = () => {
        Reflect.deleteProperty(socket, 'destroySoon'); // the prototype's again, for the connection's later answers
        linger(socket, incoming, drained);
      };
      done(null, payload);
    });
  },
  { name: 'lingering-close' },
);

function linger(socket: Socket, incoming: IncomingMessage, drained: { bytes: number }): void {
  socket.end();
  if (incoming.complete || socket.destroyed) {
    socket.destroySoon();
    return;
  }
  const close = () => {
    clearTimeout(timer);
    incoming.removeListener('data', cut);
    socket.destroy();
  };
  const cut = () => {
    if (drained.bytes > LINGER.bytes) close();
  };
  const timer = setTimeout(close, LINGER.ms).unref();
  incoming.on('data', cut);
  incoming.once('end', close);
  incoming.once('error', close);
  socket.once('close', () => clearTimeout(timer));
}
