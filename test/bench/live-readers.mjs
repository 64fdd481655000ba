// Live-channel readers for benchmarks, in their own process so that reading 1,000 streams does not
// share the load generator's event loop: node live-readers.mjs '<json options>'.
//
// Options: { base, tokens: [a token per member], follows: [query string per channel], maxSeconds,
// drainMs }. Opens one Server-Sent-Events stream per entry of `follows`, channel i as the member
// of tokens[i % tokens.length], prints `{"ready":n}` once every stream has
// begun to send its snapshot, reads them until stdin ends (or `maxSeconds` pass), then prints `{"bytes":n}` and exits.
// A line `count` on stdin prints the bytes received since the last count.
//
// Plain sockets with a hand-written request, not fetch: the 1,000 browsers stand for phones and
// desktops elsewhere, so their reading should take as little of this machine as it can. Every
// byte is read and counted (the bytes counted include the HTTP chunk framing): as it arrives, or,
// with `drainMs`, every drainMs straight from the sockets' descriptors, so that the hub's writes
// do not wake this process one by one (see drain below).
import { readSync } from 'node:fs';
import net from 'node:net';

const { base, tokens, follows, maxSeconds = 600, drainMs = 0 } = JSON.parse(process.argv[2]);
const url = new URL(base);
const sockets = new Set();
let bytes = 0;
let cutOff = 0;
let finishing = false;

// One buffer for every socket's reads: the bytes are counted, not kept.
const scratch = Buffer.alloc(64 * 1024);

function read(follow, index) {
  const token = tokens[index % tokens.length];
  return new Promise((resolve, reject) => {
    let head = '';
    let answered = false;
    // Open once its first event (the snapshot) has begun to arrive: the hub may send the headers
    // on their own first.
    let opened = false;
    const socket = net.connect({
      host: url.hostname,
      port: Number(url.port),
      onread: {
        buffer: scratch,
        callback(n, buffer) {
          if (opened) {
            bytes += n;
            return;
          }
          if (answered) bytes += n;
          else {
            head += buffer.toString('latin1', 0, n);
            const end = head.indexOf('\r\n\r\n');
            if (end < 0) return;
            const status = Number(head.slice(9, 12));
            if (status !== 200) {
              socket.destroy();
              return reject(new Error(`live channel answered ${status}`));
            }
            answered = true;
            sockets.add(socket);
            const rest = head.length - end - 4;
            bytes += rest;
            if (rest === 0) return;
          }
          opened = true;
          resolve();
          // Drained in turns (below): no wake-up of this process per write.
          if (drainMs > 0) return false;
        },
      },
    });
    socket.setNoDelay(true);
    socket.on('connect', () =>
      socket.write(
        `GET ${url.pathname}/live${follow} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`,
      ),
    );
    // A reader that fell more than the hub's limit behind is cut off by the hub: counted, not fatal.
    socket.on('close', () => {
      if (!opened) return reject(new Error('live channel closed before its snapshot'));
      if (sockets.delete(socket) && !finishing) cutOff++;
    });
    socket.on('error', (err) => {
      if (!answered) reject(err);
    });
  });
}

/**
 * drainMs > 0: once a stream has answered, its socket leaves the event loop (paused: after the
 * next write, libuv takes it out of epoll) and is read every drainMs straight from its file
 * descriptor until nothing is left, so the hub's writes no longer wake this process.
 */
function drain() {
  for (const socket of sockets) {
    const fd = socket._handle?.fd;
    if (typeof fd !== 'number' || fd < 0) continue;
    for (;;) {
      let n;
      try {
        n = readSync(fd, scratch, 0, scratch.length, null);
      } catch (err) {
        if (err.code === 'EAGAIN' || err.code === 'EWOULDBLOCK') break;
        n = 0; // reset: the hub cut it off
      }
      if (n > 0) {
        bytes += n;
        continue;
      }
      // The end of the stream: the hub cut this reader off.
      sockets.delete(socket);
      if (!finishing) cutOff++;
      socket.destroy();
      break;
    }
  }
}
if (drainMs > 0) setInterval(drain, drainMs).unref();

function finish() {
  finishing = true;
  for (const socket of sockets) socket.destroy();
  process.stdout.write(`${JSON.stringify({ bytes })}\n`);
  process.exit(0);
}

// Bounded: the bench closes stdin when it is done with the readers; a forgotten process ends anyway.
setTimeout(finish, maxSeconds * 1000).unref();
process.stdin.on('end', finish);
// A line `count` prints the bytes received since the last count (or since the start).
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  for (const line of text.split('\n')) {
    if (line.trim() !== 'count') continue;
    if (drainMs > 0) drain();
    process.stdout.write(`${JSON.stringify({ bytes, cutOff })}\n`);
    bytes = 0;
  }
});

// Fifty at a time: a thousand connections at once overflow the listen backlog of a busy hub.
for (let i = 0; i < follows.length; i += 50)
  await Promise.all(follows.slice(i, i + 50).map((follow, j) => read(follow, i + j)));
process.stdout.write(`${JSON.stringify({ ready: follows.length })}\n`);
