import net from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '@makerspace/shared';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { classifyDatabaseError, isClientAbort } from '../../hub/src/http/error-handler.js';
import { startTestHub } from '../support/hub.js';

const pgError = (code: string, message = 'x') =>
  Object.assign(new Error(message), { code, severity: 'ERROR' });

describe('database errors while running', () => {
  it('sorts errors into bad input, unavailable and the hub\u2019s own', () => {
    expect(classifyDatabaseError(pgError('22021'))).toBe('badValue');
    expect(classifyDatabaseError(pgError('22003'))).toBe('badValue');
    expect(classifyDatabaseError(pgError('57P01'))).toBe('unavailable');
    expect(classifyDatabaseError(pgError('08006'))).toBe('unavailable');
    expect(classifyDatabaseError(pgError('53300'))).toBe('unavailable');
    expect(classifyDatabaseError(new Error('Connection terminated unexpectedly'))).toBe('unavailable');
    expect(classifyDatabaseError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(
      'unavailable',
    );
    expect(classifyDatabaseError(Object.assign(new Error('x'), { code: 'SQLITE_FULL' }))).toBe('unavailable');
    expect(classifyDatabaseError(Object.assign(new Error('x'), { code: 'SQLITE_BUSY' }))).toBe('unavailable');
    expect(classifyDatabaseError(pgError('42P01'))).toBeNull();
    expect(classifyDatabaseError(new TypeError('x is undefined'))).toBeNull();
    expect(classifyDatabaseError(Object.assign(new Error('x'), { code: '22021' }))).toBeNull();
  });

  it('SQLite gone: answers 503 with a short message and Retry-After', async () => {
    const t = await startTestHub('sqlite');
    try {
      t.hub.ctx.storage.sqlite?.close();
      const res = await t.call(t.owner.token, { url: '/api/v1/resources' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({
        statusCode: 503,
        message: 'The database is unavailable; try again in a moment',
      });
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      await t.close().catch(() => {});
    }
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'PostgreSQL drops the hub\u2019s connections: the hub answers 503 or serves again, never 500, and lives on',
    async () => {
      const t = await startTestHub('postgres');
      try {
        expect((await t.call(t.owner.token, { url: '/api/v1/resources' })).statusCode).toBe(200);
        // The hub's own connections only (other test runs share the server): fill its pool and
        // note each connection's backend.
        const pids = await Promise.all(
          Array.from({ length: 10 }, async () => {
            const r = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`.execute(
              t.hub.ctx.db,
            );
            return r.rows[0].pid;
          }),
        );
        const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
        await admin.connect();
        // As a server restart would: every connection of the hub is cut.
        await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [
          [...new Set(pids)],
        ]);
        await admin.end();
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++)
          statuses.push((await t.call(t.owner.token, { url: '/api/v1/resources' })).statusCode);
        expect(
          statuses.every((s) => s === 200 || s === 503),
          String(statuses),
        ).toBe(true);
        expect(statuses.at(-1)).toBe(200);
      } finally {
        await t.close();
      }
    },
  );
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'PostgreSQL drops a connection in the middle of a transaction: the transaction fails, the hub lives on',
    async () => {
      const t = await startTestHub('postgres');
      try {
        const failed = t.hub.ctx.db.transaction().execute(async (trx) => {
          const r = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
          const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
          await admin.connect();
          await admin.query('SELECT pg_terminate_backend($1)', [r.rows[0].pid]);
          await admin.end();
          // The server's goodbye arrives while the connection is still checked out.
          await new Promise((resolve) => setTimeout(resolve, 300));
          await sql`SELECT 1`.execute(trx);
        });
        await expect(failed).rejects.toThrow();
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++)
          statuses.push((await t.call(t.owner.token, { url: '/api/v1/resources' })).statusCode);
        expect(statuses.at(-1), String(statuses)).toBe(200);
      } finally {
        await t.close();
      }
    },
  );
});

describe('a client that aborts its request', () => {
  it('is logged at debug level as the client\u2019s doing, not as the database being unavailable', async () => {
    const lines: { level: number; msg: string }[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const t = await startTestHub('sqlite', {
      logger: createLogger({ name: 'test-hub', level: 'debug', destination: sink }),
    });
    try {
      const { httpUrl } = await t.listen();
      const socket = net.connect(Number(new URL(httpUrl).port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
      // Half a body, then the connection goes away (a client that gives up mid-upload).
      socket.write(
        `POST /api/v1/members HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.owner.token}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"firstName":"Ada',
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      await expect
        .poll(() => lines.some((l) => l.level === 20 && /client closed/i.test(l.msg)), { timeout: 3000 })
        .toBe(true);
      expect(lines.filter((l) => l.level >= 40 && !/HUB_PUBLIC_URL/.test(l.msg)).map((l) => l.msg)).toEqual(
        [],
      );
      expect(lines.some((l) => /database is unavailable/.test(l.msg))).toBe(false);
      // The hub still serves, and the database was never the problem.
      expect((await t.call(t.owner.token, { url: '/api/v1/resources' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('a driver\u2019s ECONNRESET on a request whose client is still there is the database\u2019s', () => {
    const driver = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' });
    expect(classifyDatabaseError(driver)).toBe('unavailable');
    expect(isClientAbort(driver, { aborted: false, destroyed: false })).toBe(false);
    expect(isClientAbort(driver, { aborted: true, destroyed: true })).toBe(false);
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    expect(isClientAbort(aborted, { aborted: true, destroyed: true })).toBe(true);
  });
});
