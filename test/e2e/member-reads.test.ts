import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startHubProcess } from '../support/e2e.js';
import { runProcess, stopAll } from '../support/processes.js';

/**
 * A member's record is read without a query while nothing commits (db/read-memo.ts); a write by
 * another process on the same SQLite file (the hub's CLI does such writes) shows at once.
 */
describe("a member's record while another process writes the database", () => {
  afterAll(stopAll);

  it('answers the change of the other process on the next read', async () => {
    const hub = await startHubProcess();
    const created = await hub.api('POST', '/members', { firstName: 'Ada', lastName: 'Lovelace' });
    expect(created.status).toBe(201);
    const id = created.body.id;
    for (let i = 0; i < 3; i++) {
      const read = await hub.api('GET', `/members/${id}`);
      expect(read.body).toMatchObject({ firstName: 'Ada', lockVersion: created.body.lockVersion });
    }

    const script = `const S = require('better-sqlite3'); const db = new S(process.argv[1]);
db.pragma('busy_timeout = 5000');
db.prepare('update "members" set "firstName" = ?, "lockVersion" = "lockVersion" + 1 where "id" = ?').run('Augusta', Number(process.argv[2]));
db.close();`;
    const write = await runProcess(['-e', script, join(hub.dataDir, 'hub.sqlite'), String(id)], {});
    expect(write.code, write.stderr).toBe(0);

    const after = await hub.api('GET', `/members/${id}`);
    expect(after.body).toMatchObject({ firstName: 'Augusta', lockVersion: created.body.lockVersion + 1 });

    // And a change through the API, read right after it.
    const put = await hub.api('PUT', `/members/${id}`, {
      lastName: 'King',
      lockVersion: after.body.lockVersion,
    });
    expect(put.status).toBe(200);
    expect((await hub.api('GET', `/members/${id}`)).body).toMatchObject({
      firstName: 'Augusta',
      lastName: 'King',
    });
  });

  it('answers 404 to every read of a record the caller may not see, kept or not', async () => {
    const hub = await startHubProcess();
    const other = (await hub.api('POST', '/members', { firstName: 'Grace', lastName: 'Hopper' })).body;
    const member = (await hub.api('POST', '/members', { firstName: 'Alan', lastName: 'Turing' })).body;
    const key = (await hub.api('POST', '/api-keys', { member: member.id })).body;
    const token = (await hub.api('GET', `/api-keys/${key.id}/token`)).body.token as string;
    // The owner's read keeps the record's text; the member's first read asks the database, the
    // later ones answer from what was kept, and none of them may show it.
    expect((await hub.api('GET', `/members/${other.id}`)).body).toMatchObject({ firstName: 'Grace' });
    for (let i = 0; i < 3; i++) {
      expect((await hub.api('GET', `/members/${other.id}`, undefined, token)).status).toBe(404);
      expect((await hub.api('GET', `/members/${other.id + 100}`, undefined, token)).status).toBe(404);
      const own = await hub.api('GET', `/members/${member.id}`, undefined, token);
      expect(own.status).toBe(200);
      expect(own.body).toMatchObject({ firstName: 'Alan' });
    }
    expect((await hub.api('GET', `/members/${other.id}`)).body).toMatchObject({ firstName: 'Grace' });
  });
});
