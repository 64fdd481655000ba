// Live-channel readers for benchmarks, in their own process so that reading 1,000 streams does not
// share the load generator's event loop: node live-readers.mjs '<json options>'.
//
// Options: { base, token, follows: [query string per channel], maxSeconds }. Opens one
// Server-Sent-Events stream per entry of `follows`, prints `{"ready":n}` once every stream has
// answered, reads them until stdin ends (or `maxSeconds` pass), then prints `{"bytes":n}` and exits.
// A line `count` on stdin prints the bytes received since the last count.
//
// Plain sockets with a hand-written request, not fetch: the 1,000 browsers stand for phones and
// desktops elsewhere, so their reading should take as little of this machine as it can. Every
// byte is still read as it arrives (the bytes counted include the HTTP chunk framing).
import net from 'node:net';

const { base, token, follows, maxSeconds = 600 } = JSON.parse(process.argv[2]);
const url = new URL(base);
const sockets = new Set();
let bytes = 0;
let cutOff = 0;
let finishing = false;

function read(follow) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port) });
    let head = '';
    let answered = false;
    socket.setNoDelay(true);
    socket.on('connect', () =>
      socket.write(
        `GET ${url.pathname}/live${follow} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`,
      ),
    );
    socket.on('data', (data) => {
      if (answered) {
        bytes += data.length;
        return;
      }
      head += data.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const status = Number(head.slice(9, 12));
      if (status !== 200) {
        socket.destroy();
        return reject(new Error(`live channel answered ${status}`));
      }
      answered = true;
      bytes += head.length - end - 4;
      sockets.add(socket);
      resolve();
    });
    // A reader that fell more than the hub's limit behind is cut off by the hub: counted, not fatal.
    socket.on('close', () => {
      if (!answered) return reject(new Error('live channel closed before answering'));
      sockets.delete(socket);
      if (!finishing) cutOff++;
    });
    socket.on('error', (err) => {
      if (!answered) reject(err);
    });
  });
}

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
    process.stdout.write(`${JSON.stringify({ bytes, cutOff })}\n`);
    bytes = 0;
  }
});

// Fifty at a time: a thousand connections at once overflow the listen backlog of a busy hub.
for (let i = 0; i < follows.length; i += 50) await Promise.all(follows.slice(i, i + 50).map(read));
process.stdout.write(`${JSON.stringify({ ready: follows.length })}\n`);
