// Live-channel readers for benchmarks, in their own process so that reading 1,000 streams does not
// share the load generator's event loop: node live-readers.mjs '<json options>'.
//
// Options: { base, token, follows: [query string per channel], maxSeconds }. Opens one
// Server-Sent-Events stream per entry of `follows`, prints `{"ready":n}` once every stream has
// answered, reads them until stdin ends (or `maxSeconds` pass), then prints `{"bytes":n}` and exits.
// A line `count` on stdin prints the bytes received since the last count.
const { base, token, follows, maxSeconds = 600 } = JSON.parse(process.argv[2]);
const controller = new AbortController();
let bytes = 0;

let cutOff = 0;

async function read(follow) {
  // A reader that fell more than the hub's limit behind is cut off by the hub: counted, not fatal.
  const res = await fetch(`${base}/live${follow}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  if (res.status !== 200) throw new Error(`live channel answered ${res.status}`);
  const reader = res.body.getReader();
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        bytes += value.length;
      }
    } catch {
      if (!controller.signal.aborted) cutOff++;
    }
  })();
}

function finish() {
  controller.abort();
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
