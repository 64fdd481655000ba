import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startHubProcess } from '../support/e2e.js';
import { hubCli, runProcess, stopAll, tempDir } from '../support/processes.js';

afterAll(stopAll);

describe('makerspace-hub import csv members', () => {
  it('imports a spreadsheet, refuses one with wrong rows line by line, and skips them when asked', async () => {
    const dataDir = tempDir('import-csv-');
    const env = { HUB_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    const init = await runProcess(
      [hubCli, 'init', '--account', 'Fablab', '--email', 'owner@fablab.example'],
      env,
    );
    expect(init.code).toBe(0);
    const { token } = JSON.parse(init.stdout);
    const file = (name: string, bytes: Buffer) => {
      const path = join(dataDir, name);
      writeFileSync(path, bytes);
      return path;
    };
    const run = (...args: string[]) => runProcess([hubCli, 'import', 'csv', 'members', ...args], env);

    // Excel on Windows: Windows-1252, semicolons; the space's locale (en-US by default) for dates.
    const good = file(
      'mitglieder.csv',
      Buffer.from(
        [
          'Vorname;Nachname;E-Mail;Mitgliedsnummer;Geburtsdatum',
          'Jörg;Weiß;joerg@example.org;17;12/31/1980',
          'Anna;Öztürk;anna@example.org;18;',
        ].join('\r\n'),
        'latin1',
      ),
    );
    const dry = await run(good, '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('2 rows; windows-1252, separator ";"');
    expect(dry.stdout).toContain('Vorname -> firstName');
    expect(dry.stdout).toContain('Dry run: 2 members would be created; nothing written.');
    const done = await run(good);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('Created 2 members.');

    const bad = file(
      'bad.csv',
      Buffer.from(
        [
          'First name,Last name,Email,Date of birth',
          'Good,Row,good@example.org,',
          'Bad,Date,bad@example.org,31.12.1980',
          ',Nameless,nameless@example.org,',
        ].join('\n'),
        'utf8',
      ),
    );
    const refused = await run(bad);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /line 3: Date of birth: "31\.12\.1980" is not a date \(write it as 12\/31\/2025\)/,
    );
    expect(refused.stdout).toMatch(/line 4: First name: missing/);
    expect(refused.stdout).toContain('Nothing imported');
    const skipped = await run(bad, '--skip-bad-rows');
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(skipped.stdout).toContain('Created 1 member; 2 wrong rows skipped.');

    const missing = await run(join(dataDir, 'nope.csv'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*nope\.csv: ENOENT/);

    const hub = await startHubProcess({ dataDir, token });
    const members = (await hub.api('GET', '/members')).body as {
      firstName: string;
      lastName: string;
      memberNumber: string | null;
      dateOfBirth: string | null;
    }[];
    // The owner and the three imported.
    expect(members).toHaveLength(4);
    expect(members.map((m) => `${m.firstName} ${m.lastName}`)).toEqual(
      expect.arrayContaining(['Anna Öztürk', 'Good Row', 'Jörg Weiß']),
    );
    expect(members.find((m) => m.firstName === 'Jörg')).toMatchObject({
      memberNumber: '17',
      dateOfBirth: '1980-12-31',
    });
    // Eight CLI runs and a hub start: 17 s on an idle machine, over 60 s beside other test files.
  }, 180_000);
});
