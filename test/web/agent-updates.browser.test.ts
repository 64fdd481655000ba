import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { builtVersion, makeRelease, pairAndSupervise, type supervise } from '../support/agent-releases.js';
import { consoleTestHooks, openConsole, startConsoleHub } from '../support/admin-console.js';
import { browserTestsEnabled } from '../support/browser.js';
import { repoRoot, tempDir } from '../support/processes.js';

describe.runIf(browserTestsEnabled())('agent updates on the dashboard (Chromium, real hub and agent)', () => {
  let browser: Browser | undefined;
  let page: Page | undefined;
  let agent: ReturnType<typeof supervise> | undefined;
  consoleTestHooks('agent-updates', () => ({ browser, pages: page }));

  it('an admin updates a bridge with one button and watches it come back on the new version', async () => {
    const releaseDir = tempDir('releases-');
    const started = await startConsoleHub('lathe-chuck-8812-oak', { HUB_AGENT_RELEASE_DIR: releaseDir });
    const { hub } = started;
    const laser = (
      await hub.api('POST', '/resources', {
        space: started.owner.space,
        name: 'Laser',
        controlType: 'machine',
      })
    ).body;
    ({ agent } = await pairAndSupervise(hub, laser.id, 30));
    await makeRelease(releaseDir, '0.9.0');

    ({
      browser,
      admin: { page },
    } = await openConsole(started, '/admin'));
    const panel = page.getByRole('region', { name: 'Agent updates' });
    await expect
      .poll(() => panel.getByText('The hub offers agent 0.9.0.').isVisible(), { timeout: 15_000 })
      .toBe(true);
    const row = panel.getByRole('listitem').filter({ hasText: 'Laser' });
    await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain(`agent ${builtVersion}`);

    await row.getByRole('button', { name: 'Update Laser' }).click();
    await expect.poll(() => panel.getByRole('status').textContent()).toBe('Updating Laser to 0.9.0');
    await expect
      .poll(() => row.getByTestId('update-step').textContent(), { timeout: 30_000 })
      .toBe('0.9.0: running, connected to the hub');
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('Laser: agent 0.9.0');
    // The update has ended: its row says how, and "Updating Laser to 0.9.0" is gone.
    await expect.poll(() => panel.getByText('Updating Laser to 0.9.0').count()).toBe(0);
    await panel.screenshot({ path: join(repoRoot, 'docs/screenshots/admin-agent-updates.png') });
    // Up to date: no button for it, and "Update all" has nothing to do.
    expect(await row.getByRole('button').count()).toBe(0);
    expect(await panel.getByRole('button', { name: 'Update all bridges' }).isDisabled()).toBe(true);
    await agent.stop();
  }, 90_000);
});
