import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { startTestHub, type TestHub } from '../support/hub.js';

const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

describe('security headers', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub('sqlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('every answer carries a CSP that fits a same-origin web app, and the usual headers', async () => {
    for (const url of ['/api/v1/members', '/health', '/nowhere', '/api/v1/docs/', '/api/v1/docs/none']) {
      const res = await t.call(t.owner.token, { url });
      const csp = String(res.headers['content-security-policy']);
      for (const directive of [
        "default-src 'self'",
        "script-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
      ])
        expect(csp, url).toContain(directive);
      expect(csp).not.toContain('unsafe-eval');
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.headers['referrer-policy'], url).toBe('no-referrer');
    }
    // Only the docs page may use inline styles (swagger-ui sets them at run time); no page
    // may run inline scripts.
    const app = await t.call(t.owner.token, { url: '/api/v1/members' });
    expect(app.headers['content-security-policy']).not.toContain('unsafe-inline');
  });

  it('headers for documents shown in a browser come with pages, not with API answers', async () => {
    const documentOnly = ['cross-origin-opener-policy', 'origin-agent-cluster', 'x-xss-protection'];
    for (const url of ['/health', '/nowhere', '/api/v1/docs/']) {
      const res = await t.call(t.owner.token, { url });
      for (const name of documentOnly) expect(res.headers[name], `${url} ${name}`).toBeDefined();
      expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
    }
    for (const url of ['/api/v1/members', '/api/v1/nowhere', '/api/v1/user/me']) {
      const res = await t.call(t.owner.token, { url });
      for (const name of documentOnly) expect(res.headers[name], `${url} ${name}`).toBeUndefined();
      expect(res.headers['strict-transport-security'], url).toContain('max-age=');
      expect(res.headers['cross-origin-resource-policy'], url).toBe('same-origin');
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
  });

  it('the live channel, which writes its stream itself, carries them too, once each', async () => {
    const { httpUrl } = await t.listen();
    const controller = new AbortController();
    for (const path of ['/api/v1/live', '/api/v1/live/']) {
      const res = await fetch(`${httpUrl}${path}`, {
        headers: { authorization: `Bearer ${t.owner.token}` },
        signal: controller.signal,
      });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('cache-control')).toBe('no-store');
      await res.body?.cancel();
    }
    controller.abort();
  });

  it('answers that carry tokens and keys are never stored by a cache', async () => {
    const key = await t.call(t.owner.token, {
      method: 'POST',
      url: '/api/v1/api-keys',
      payload: { label: 'x' },
    });
    expect(key.statusCode).toBe(201);
    expect(key.headers['cache-control']).toBe('no-store');
    const read = await t.call(t.owner.token, { url: `/api/v1/api-keys/${key.json().id}/token` });
    expect(read.json().token).toBeTruthy();
    expect(read.headers['cache-control']).toBe('no-store');
    const resource = await t.call(t.owner.token, {
      method: 'POST',
      url: '/api/v1/resources',
      payload: { space: t.owner.spaceId, name: 'Door' },
    });
    expect(resource.json().switchOnCode).toBeTruthy();
    expect(resource.headers['cache-control']).toBe('no-store');
    await t.call(t.owner.token, {
      method: 'PUT',
      url: `/api/v1/resources/${resource.json().id}/bridge`,
      payload: {},
    });
    const bridgeKey = await t.call(t.owner.token, {
      url: `/api/v1/resources/${resource.json().id}/bridge/api-key`,
    });
    expect(bridgeKey.json().apiKey).toBeTruthy();
    expect(bridgeKey.headers['cache-control']).toBe('no-store');
    const calendar = await t.call(t.owner.token, {
      method: 'PUT',
      url: `/api/v1/spaces/${t.owner.spaceId}/calendar-token`,
    });
    expect(calendar.headers['cache-control']).toBe('no-store');
    expect((await t.app.inject({ url: '/api/v1/members' })).headers['cache-control']).toBe('no-store');
  });

  it('the docs page and every script and stylesheet it names load from the same origin', async () => {
    const page = await t.app.inject({ url: '/api/v1/docs/' });
    expect(page.statusCode).toBe(200);
    const refs = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThanOrEqual(4);
    for (const ref of refs) {
      expect(ref, 'same origin, relative').toMatch(/^\.\//);
      const asset = await t.app.inject({ url: new URL(ref, 'http://h/api/v1/docs/').pathname });
      expect(asset.statusCode, ref).toBe(200);
    }
    expect(page.body).not.toMatch(/<script>(?!\s*<\/script>)|<script(?![^>]*src=)/);
    const init = await t.app.inject({ url: '/api/v1/docs/static/swagger-initializer.js' });
    expect(init.body).toContain("resolveUrl('./json')");
    // The docs page reads a 3.0 rendition (swagger-ui opens it far faster); the document stays 3.1.
    expect((await t.app.inject({ url: '/api/v1/docs/json' })).json().openapi).toBe('3.0.3');
    expect((await t.app.inject({ url: '/api/v1/openapi.json' })).json().openapi).toBe('3.1.0');
  });

  it.skipIf(!chromium)(
    'the docs page renders in a real browser under its CSP, with the product’s name',
    async () => {
      const { httpUrl } = await t.listen();
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        // A CSP refusal shows as a console error ("Refused to load ... Content Security Policy").
        const problems: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') problems.push(m.text());
        });
        page.on('pageerror', (e) => problems.push(e.message));
        await page.goto(`${httpUrl}/api/v1/docs/`);
        // swagger-ui renders the operations of a long document as they scroll into view.
        const membersList = page.locator('[data-path="/api/v1/members"]').first();
        await page.locator('[data-path="/api/v1/accounts"]').first().waitFor({ timeout: 30_000 });
        for (let i = 0; i < 100 && !(await membersList.count()); i++) {
          await page.mouse.wheel(0, 600);
          await page.waitForTimeout(50);
        }
        await membersList.waitFor({ timeout: 10_000 });
        expect(problems.filter((p) => /Content Security Policy|Refused/i.test(p))).toEqual([]);

        // The product's name as title and heading; no framework logo, top bar or favicon.
        expect(await page.title()).toBe('Makerspace hub API');
        await expect(page.locator('.info .title').first().textContent()).resolves.toContain(
          'Makerspace hub API',
        );
        expect(await page.locator('.topbar, img[src*="logo"], svg[class*="logo"]').count()).toBe(0);
        expect(await page.locator('link[rel="icon"]').getAttribute('href')).toMatch(/theme\/favicon\.svg$/);
        expect(await page.locator('.opblock-summary-description').first().textContent()).toBeTruthy();
        // How fast it opens is measured in `npm run bench -- web` (docs/PERFORMANCE.md).
      } finally {
        await browser.close();
      }
    },
    90_000,
  );
});
