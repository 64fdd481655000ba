// A bare Fastify hello-world on 127.0.0.1 (a free port), the yardstick of the read benchmarks:
// prints {"port": N} once listening and runs until killed.
import Fastify from 'fastify';

const app = Fastify();
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`);
