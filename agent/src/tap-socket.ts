import { chmod, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { type CardRead, normaliseCard } from '@makerspace/hardware';
import type { Logger } from '@makerspace/shared/agent';
import type { TapOutcome } from './card-access.feature.js';

export const TAP_SOCKET_NAME = 'agent.sock';

/** The tap socket's wire format: one JSON line each way. */
export interface TapRequest {
  type?: string;
  token: string;
}
export type TapResponse = { ok: true; outcome: TapOutcome } | { ok: false; error: string };

export interface TapSocketOptions {
  dataDir: string;
  logger: Logger;
  onTap: (card: CardRead) => Promise<TapOutcome>;
}

const MAX_REQUEST_BYTES = 4096;

export function tapSocketPath(dataDir: string): string {
  return join(dataDir, TAP_SOCKET_NAME);
}

/**
 * A unix socket in the data dir (mode 0600: only the agent's user can tap) through which
 * `makerspace-agent tap` delivers a card read. The tap is handled exactly like a read from the
 * card reader, and the decision goes back to the command.
 */
export class TapSocket {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  readonly path: string;

  constructor(private readonly options: TapSocketOptions) {
    this.path = tapSocketPath(options.dataDir);
  }

  async start(): Promise<void> {
    // A socket file left by a crashed run would make listen() fail with EADDRINUSE.
    await rm(this.path, { force: true });
    const server = createServer((socket) => this.serve(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.options.logger.error({ err: err.message }, 'tap socket error'));
    await chmod(this.path, 0o600);
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(this.path, { force: true });
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      if (buffer.length > MAX_REQUEST_BYTES) {
        this.answer(socket, { ok: false, error: 'request too large' });
        return;
      }
      const newline = buffer.indexOf('\n');
      if (newline < 0) return;
      socket.off('data', onData);
      void this.handle(socket, buffer.slice(0, newline));
    };
    socket.on('data', onData);
  }

  private async handle(socket: Socket, line: string): Promise<void> {
    let response: TapResponse;
    try {
      const request = JSON.parse(line) as TapRequest;
      const card = normaliseCard({ type: request?.type, token: request?.token });
      response = { ok: true, outcome: await this.options.onTap(card) };
    } catch (err) {
      response = { ok: false, error: (err as Error).message };
    }
    this.answer(socket, response);
  }

  private answer(socket: Socket, response: TapResponse): void {
    if (!socket.destroyed) socket.end(`${JSON.stringify(response)}\n`);
  }
}

/** The `tap` command's side: sends one tap and waits for the decision. */
export function sendTap(socketPath: string, request: TapRequest, timeoutMs = 15_000): Promise<TapResponse> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    let buffer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer from the agent within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('end', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(buffer.trim()) as TapResponse);
      } catch {
        reject(new Error('the agent sent an unreadable answer'));
      }
    });
  });
}
