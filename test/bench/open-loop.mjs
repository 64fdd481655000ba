// An open-loop HTTP load generator: node open-loop.mjs '<json options>' -> one JSON line.
//
// Requests are started on a fixed schedule (request i at start + i / rate), whatever the answers
// do, the way independent members call switch-on. Closed-loop tools (a fixed number of
// connections, each sending its next request when the last one is answered) measure something
// else: their rate limiter sends each second's quota in a burst, so their latency is that of a
// queue of bursts, not of calls arriving at the given rate.
//
// Latency runs from the moment the request is written to the socket until its whole response has
// arrived. `lag` reports how late the generator itself wrote requests against the schedule, so a
// reader can see whether the generator kept up. Keep-alive connections are opened up front; when
// every connection is busy a new one is opened (up to `maxConnections`), otherwise the request
// waits for one and that wait shows up in `lag`.
//
// A connection that sends nothing for the server's header timeout after it was opened is closed
// by Node's HTTP server with an unsolicited `408 Request Timeout` (the hub's is 10 s). A request
// written to such a connection just then reads that 408 as its answer, though the server never
// saw it. Likewise a request written to a kept-alive connection just as the server closes it for
// idleness meets a closed connection and no answer. Browsers send such a request again on
// another connection, and so does this generator (once, on a new connection, its latency still
// counted from the first write); `retried` says how often, by cause.
import net from 'node:net';

const options = JSON.parse(process.argv[2]);
const { url, requests, rate, seconds } = options;
const maxConnections = options.maxConnections ?? 512;
const timeoutMs = options.timeoutMs ?? 10_000;
const target = new URL(url);
const host = target.hostname;
const port = Number(target.port);

const buffers = requests.map((r) => {
  const body = r.body ?? '';
  const headers = {
    host: `${host}:${port}`,
    ...(r.headers ?? {}),
    'content-length': Buffer.byteLength(body),
  };
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return Buffer.from(`${r.method} ${r.path} HTTP/1.1\r\n${head}\r\n${body}`);
});

const latencies = [];
const lags = [];
const statusCodes = {};
let errors = 0;
let timeouts = 0;
let completed = 0;
let sent = 0;
const retried = { 408: 0, closed: 0 };
let open = 0;
const idle = [];
const waiting = [];

function connection() {
  const socket = net.connect({ host, port, noDelay: true });
  open++;
  const conn = { socket, buffer: Buffer.alloc(0), current: null, timer: null, gone: false };
  socket.on('data', (chunk) => {
    conn.buffer = conn.buffer.length ? Buffer.concat([conn.buffer, chunk]) : chunk;
    parse(conn);
  });
  const fail = () => {
    // 'error' is followed by 'close': count the connection once.
    if (conn.gone) return;
    conn.gone = true;
    if (conn.current) {
      const { job, writtenAt, retry } = conn.current;
      clearTimeout(conn.timer);
      conn.current = null;
      if (!retry && conn.buffer.length === 0) {
        // Closed before any byte of the answer: the server closed the connection as this request
        // went out on it.
        retried.closed++;
        open--;
        forget(conn);
        dispatch(job, { writtenAt });
        return;
      }
      errors++;
    }
    open--;
    forget(conn);
  };
  socket.on('error', fail);
  socket.on('close', fail);
  return conn;
}

/** Takes a connection out of the idle ones (it closed, or is closing). */
function forget(conn) {
  const at = idle.indexOf(conn);
  if (at >= 0) idle.splice(at, 1);
}

function parse(conn) {
  const end = conn.buffer.indexOf('\r\n\r\n');
  if (end < 0) return;
  if (!conn.current) {
    // An answer to no request (the server's 408 on a connection that sent nothing): the
    // connection is closing, so it takes no more requests.
    forget(conn);
    conn.socket.destroy();
    return;
  }
  const head = conn.buffer.subarray(0, end).toString('latin1');
  const match = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  const length = match ? Number(match[1]) : 0;
  if (conn.buffer.length < end + 4 + length) return;
  const status = head.slice(9, 12);
  conn.buffer = conn.buffer.subarray(end + 4 + length);
  const done = performance.now();
  const { writtenAt, job, retry } = conn.current;
  conn.current = null;
  clearTimeout(conn.timer);
  if (status === '408' && !retry && /\r\nconnection:\s*close/i.test(head)) {
    // The server timed out a connection on which it had seen no request: not this request's
    // answer. The connection is closing; the request goes again on another one.
    retried[408]++;
    dispatch(job, { writtenAt });
    return;
  }
  statusCodes[status] = (statusCodes[status] ?? 0) + 1;
  if (status[0] === '2') latencies.push(done - writtenAt);
  completed++;
  release(conn);
}

function release(conn) {
  const next = waiting.shift();
  if (next) write(conn, next.job, next.retry);
  else idle.push(conn);
}

function write(conn, job, retry) {
  const writtenAt = retry?.writtenAt ?? performance.now();
  if (!retry) lags.push(writtenAt - job.due);
  conn.current = { writtenAt, job, retry: Boolean(retry) };
  conn.timer = setTimeout(() => {
    timeouts++;
    conn.current = null;
    conn.socket.destroy();
  }, timeoutMs);
  conn.socket.write(buffers[job.index % buffers.length]);
}

function dispatch(job, retry) {
  // A request sent again goes on a new connection: the idle ones were opened or last used at the
  // same time as the one that failed, and may be closing just the same.
  const conn = retry && open < maxConnections ? undefined : idle.pop();
  if (conn) return write(conn, job, retry);
  if (open < maxConnections) {
    const fresh = connection();
    fresh.socket.once('connect', () => write(fresh, job, retry));
    return;
  }
  waiting.push({ job, retry });
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main() {
  const initial = Math.min(maxConnections, options.connections ?? Math.max(8, Math.ceil(rate / 50)));
  await Promise.all(
    Array.from({ length: initial }, () => {
      const conn = connection();
      return new Promise((resolve) =>
        conn.socket.once('connect', () => {
          idle.push(conn);
          resolve();
        }),
      );
    }),
  );
  const total = Math.round(rate * seconds);
  const start = performance.now();
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - start) / 1000) * rate) + 1);
      while (sent < due) {
        dispatch({ index: sent, due: start + (sent * 1000) / rate });
        sent++;
      }
      if (sent >= total) return resolve();
      const nextDue = start + (sent * 1000) / rate;
      setTimeout(tick, Math.max(0, nextDue - performance.now() - 0.2));
    };
    tick();
  });
  const sendingEnded = performance.now();
  // Answers still in flight get until the timeout.
  const deadline = Date.now() + timeoutMs;
  while (completed + errors + timeouts < total && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  const finished = performance.now();
  latencies.sort((a, b) => a - b);
  lags.sort((a, b) => a - b);
  const round = (v) => (v === null ? null : Math.round(v * 100) / 100);
  process.stdout.write(
    `${JSON.stringify({
      offered: rate,
      sent,
      ok: latencies.length,
      non2xx: completed - latencies.length,
      errors,
      timeouts,
      unanswered: total - completed - timeouts - errors,
      // Answers per second over the whole run, from the first request to the last answer.
      rps: completed / ((finished - start) / 1000),
      sendSeconds: (sendingEnded - start) / 1000,
      p50: round(percentile(latencies, 50)),
      p90: round(percentile(latencies, 90)),
      p99: round(percentile(latencies, 99)),
      max: round(latencies.at(-1) ?? null),
      lagP99: round(percentile(lags, 99)),
      connections: open,
      retried,
      statusCodes,
    })}\n`,
  );
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
