// Runs autocannon in its own process: node load-runner.mjs '<json options>' -> one JSON line.
// A separate process keeps the load generator off the hub's event loop.
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2]);
const result = await autocannon({ ...options, json: true });
process.stdout.write(
  `${JSON.stringify({
    rps: result.requests.average,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: result.statusCodeStats,
  })}\n`,
);
