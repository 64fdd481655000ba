import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startHubProcess } from '../support/e2e.js';
import { hubCli, runProcess, stopAll, tempDir } from '../support/processes.js';

/** `makerspace-hub backup` while the hub runs and writes, then `restore` after it stopped. */
describe('backup and restore of the SQLite database', () => {
  afterAll(stopAll);

  it('backs up while the hub writes, refuses to restore under a running hub, restores after it stopped', async () => {
    const hub = await startHubProcess();
    const env = { HUB_DATA_DIR: hub.dataDir, LOG_LEVEL: 'info' };
    const names = (await hub.api('GET', '/members?limit=1000')).body.map(
      (m: { firstName: string }) => m.firstName,
    );
    const backups = tempDir('backups-');
    const file = join(backups, 'hub-1.sqlite');

    // Members are being created while the backup runs: the copy is one consistent moment.
    let writing = true;
    const created: string[] = [];
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const res = await hub.api('POST', '/members', { firstName: `Before${i}`, lastName: 'Backup' });
        expect(res.status).toBe(201);
        created.push(`Before${i}`);
      }
    })();
    while (created.length < 5) await new Promise((r) => setTimeout(r, 10));
    const backup = await runProcess([hubCli, 'backup', file], env);
    writing = false;
    await writer;
    expect(backup.code, backup.stderr).toBe(0);
    const summary = JSON.parse(backup.stdout);
    expect(summary).toMatchObject({ file, migration: expect.stringMatching(/^\d{4}-/) });
    expect(summary.bytes).toBeGreaterThan(0);
    expect(backup.stderr).toMatch(/secret\.key/);
    expect(existsSync(`${file}.partial`)).toBe(false);

    // A second backup to the same name is refused; a PostgreSQL URL points to pg_dump.
    const again = await runProcess([hubCli, 'backup', file], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists/);
    const pg = await runProcess([hubCli, 'backup', join(backups, 'x.sqlite')], {
      ...env,
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    });
    expect(pg.code).toBe(2);
    expect(pg.stderr).toMatch(/pg_dump/);

    const after = await hub.api('POST', '/members', { firstName: 'AfterBackup', lastName: 'Lost' });
    expect(after.status).toBe(201);

    const refused = await runProcess([hubCli, 'restore', file], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/in use: stop the hub first/);

    // Not a database, or a damaged one: refused, and nothing changes.
    const junk = join(backups, 'junk.sqlite');
    writeFileSync(junk, 'not a database at all');
    await hub.proc.stop('SIGTERM');
    const before = readFileSync(join(hub.dataDir, 'hub.sqlite'));
    const badRestore = await runProcess([hubCli, 'restore', junk], env);
    expect(badRestore.code).toBe(2);
    expect(badRestore.stderr).toMatch(/not an SQLite database/);
    const damaged = join(backups, 'damaged.sqlite');
    const copy = readFileSync(file);
    // Every b-tree page after the first gets an impossible page type.
    const pageSize = copy.readUInt16BE(16);
    for (let page = 1; page * pageSize < copy.length; page++) copy[page * pageSize] = 0xff;
    writeFileSync(damaged, copy);
    const badDamaged = await runProcess([hubCli, 'restore', damaged], env);
    expect(badDamaged.code).toBe(2);
    expect(badDamaged.stderr).toMatch(/damaged|malformed|not a database/);
    expect(readFileSync(join(hub.dataDir, 'hub.sqlite')).equals(before)).toBe(true);

    const restore = await runProcess([hubCli, 'restore', file], env);
    expect(restore.code, restore.stderr).toBe(0);
    const result = JSON.parse(restore.stdout);
    expect(result.previous).toMatch(/hub\.sqlite\.before-restore-/);
    expect(readdirSync(hub.dataDir).some((f) => f.startsWith('hub.sqlite.before-restore-'))).toBe(true);

    const restarted = await startHubProcess({ dataDir: hub.dataDir, token: hub.token });
    const members = (await restarted.api('GET', '/members?limit=1000')).body.map(
      (m: { firstName: string }) => m.firstName,
    );
    // Everything the backup saw, in one piece: the first N members of the writer and nothing after.
    const inBackup = members.filter((n: string) => n.startsWith('Before'));
    expect(inBackup.length).toBeGreaterThanOrEqual(5);
    expect(inBackup).toEqual(created.slice(0, inBackup.length));
    expect(members).not.toContain('AfterBackup');
    expect(members).toEqual(expect.arrayContaining(names));
  });
});
