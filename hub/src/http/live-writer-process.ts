/**
 * The live channel's writer (see live-writer.ts): a process of its own that holds the sockets of
 * the hub's event streams once their headers are sent, and writes to them what the hub gives it.
 * The hub builds every message once; the thousand socket writes of a flush, and the kernel's
 * work for each, happen here, on another core than the hub's event loop.
 *
 * Messages from the hub (in order):
 * - `adopt` with a socket: the stream `id`, its response headers already written;
 * - `write`: bytes (framed as an HTTP/1.1 chunk) for the streams `ids`;
 * - `end`: last bytes (or none) for the streams `ids`, then the end of the response.
 * To the hub: `closed` with the ids of streams that ended (the browser went, the stream was
 * ended, or it was cut off as a reader too slow to keep up).
 */
import type { Socket } from 'node:net';

/** A reader that has this much unread is cut off (the hub's MAX_BUFFERED, passed by live-writer.ts). */
const maxBuffered = Number(process.argv[2]);

const LAST_CHUNK = Buffer.from('0\r\n\r\n');

type FromHub =
  | { t: 'adopt'; id: number }
  | { t: 'write'; ids: number[]; data: Uint8Array }
  | { t: 'end'; ids: number[]; data: Uint8Array | null };

const sockets = new Map<number, Socket>();
let closedIds: number[] = [];
let reportQueued = false;

/** Ends reported together, once per turn of the event loop. */
function closed(id: number): void {
  closedIds.push(id);
  if (reportQueued) return;
  reportQueued = true;
  setImmediate(() => {
    reportQueued = false;
    const ids = closedIds;
    closedIds = [];
    if (process.connected) process.send?.({ t: 'closed', ids });
  });
}

const bytes = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

process.on('message', (message: FromHub, handle?: Socket) => {
  if (message.t === 'adopt') {
    if (!handle) return closed(message.id);
    const { id } = message;
    sockets.set(id, handle);
    handle.on('error', () => handle.destroy());
    handle.on('close', () => {
      if (sockets.get(id) === handle) sockets.delete(id);
      closed(id);
    });
    // The browser sends nothing more on an event stream; its end is the stream's.
    handle.on('end', () => handle.destroy());
    handle.resume();
    return;
  }
  const data = message.data ? bytes(message.data) : null;
  for (const id of message.ids) {
    const socket = sockets.get(id);
    if (!socket || socket.destroyed) continue;
    if (socket.writableLength > maxBuffered) {
      socket.destroy();
      continue;
    }
    if (message.t === 'write') {
      if (data) socket.write(data);
    } else {
      sockets.delete(id);
      socket.end(data ? Buffer.concat([data, LAST_CHUNK]) : LAST_CHUNK);
    }
  }
});

// The hub has gone (stopped or crashed): its streams end with it.
process.on('disconnect', () => {
  for (const socket of sockets.values()) socket.end(LAST_CHUNK);
  // Readers that do not take their last bytes within a second are not waited for.
  setTimeout(() => process.exit(0), 1000);
});

process.send?.({ t: 'ready' });
