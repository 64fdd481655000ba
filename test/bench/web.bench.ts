import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { hasChromium, launchChromium } from '../support/browser.js';
import type { HubProcess } from '../support/e2e.js';
import { repoRoot } from '../support/processes.js';
import { fmt, openLoop } from './harness.js';
import { startSwitchOnScene } from './switch-on.bench.js';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** The gzipped size of the web app's JavaScript chunks whose names start with `prefix`. */
function scriptSize(prefix: string): number {
  const dir = join(repoRoot, 'web/dist/assets');
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith('.js'))
    .reduce((sum, f) => sum + gzipSync(readFileSync(join(dir, f)), { level: 9 }).length, 0);
}

/** A browser session for the bench member: an invitation link (no SMTP: the link comes back) redeemed. */
async function sessionCookie(hub: HubProcess, memberId: number): Promise<{ name: string; value: string }> {
  await hub.api('PUT', `/members/${memberId}`, {
    emailAddress: `bench${memberId}@bench.example`,
    lockVersion: (await hub.api('GET', `/members/${memberId}`)).body.lockVersion,
  });
  const invitation = await hub.api('POST', `/members/${memberId}/invitation`);
  const token = new URL(invitation.body.link.replace('#', '?')).searchParams.get('token');
  const res = await fetch(`${hub.base}/user/sign-in-links/redeem`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  const cookie = res.headers.get('set-cookie') ?? '';
  const [name, value] = cookie.split(';')[0].split('=');
  return { name, value };
}

/** Opens `count` live channels (Server-Sent Events) and keeps reading them; returns a closer. */
async function openLiveChannels(
  hub: HubProcess,
  token: string,
  count: number,
  follow: (i: number) => string,
) {
  const controller = new AbortController();
  let bytes = 0;
  const started = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const res = await fetch(`${hub.base}/live${follow(i)}`, {
        headers: { authorization: `Bearer ${token}` },
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      void (async () => {
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) return;
            bytes += value.length;
          }
        } catch {
          // aborted
        }
      })();
    }),
  );
  return { count: started.length, bytes: () => bytes, close: () => controller.abort() };
}

/**
 * issue 12: the member pages in Chromium (open the machine page -> the button is enabled; tap ->
 * success), the JavaScript a phone downloads, and switch-on latency at 200/s with and without
 * 1,000 live channels open.
 */
export async function webBench(seconds: number): Promise<string[]> {
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    process.stderr.write(`${line}\n`);
  };
  // The member pages load the entry chunk only; the admin console is a chunk of its own.
  say(`| member pages' JavaScript, gzipped | ${fmt(scriptSize('index-') / 1024, 1)} kB | | |`);
  say(`| admin console chunk, gzipped (admins only) | ${fmt(scriptSize('admin-') / 1024, 1)} kB | | |`);

  const { hub, token, resources, memberId, farm, requests } = await startSwitchOnScene();
  const origin = `http://127.0.0.1:${hub.httpPort}`;

  if (hasChromium && process.env.BENCH_WEB_BROWSER !== '0') {
    const browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const cookie = await sessionCookie(hub, memberId);
    await context.addCookies([{ ...cookie, url: origin }]);
    const page = await context.newPage();
    const ready: number[] = [];
    const tap: number[] = [];
    const rounds = 40;
    for (let i = 0; i < rounds + 3; i++) {
      const r = resources[i % resources.length];
      await page.goto(`${origin}/r/${r.id}?c=${r.code}`, { waitUntil: 'commit' });
      // From the start of navigation to the enabled button, as the page itself sees it.
      // Plain strings: the benchmark runs under tsx, whose helpers do not exist in the page.
      const enabledAt = (await page.evaluate(`new Promise((resolve) => {
        const check = () => {
          const button = document.querySelector('button.big.primary');
          if (button && !button.disabled) resolve(performance.now());
          else requestAnimationFrame(check);
        };
        check();
      })`)) as number;
      const tapToSuccess = (await page.evaluate(`new Promise((resolve) => {
        const started = performance.now();
        const observer = new MutationObserver(() => {
          if (document.querySelector('.outcome.success')) {
            observer.disconnect();
            resolve(performance.now() - started);
          }
        });
        observer.observe(document.body, { childList: true, subtree: true });
        document.querySelector('button.big.primary').click();
      })`)) as number;
      if (i >= 3) {
        ready.push(enabledAt);
        tap.push(tapToSuccess);
      }
    }
    await browser.close();
    say(
      `| machine page: open -> button enabled (Chromium, signed in, ${rounds} doors) | | p50 ${fmt(percentile(ready, 50))} ms, p99 ${fmt(percentile(ready, 99))} ms | |`,
    );
    say(
      `| machine page: tap Unlock -> success shown | | p50 ${fmt(percentile(tap, 50))} ms, p99 ${fmt(percentile(tap, 99))} ms | |`,
    );
  } else {
    say(
      `| machine page in Chromium | skipped: ${hasChromium ? 'BENCH_WEB_BROWSER=0' : 'no Chromium (apt-get install chromium)'} | | |`,
    );
  }

  const run = () => openLoop({ url: origin, requests, seconds, rate: 200 });
  await openLoop({ url: origin, requests, seconds: 2, rate: 200 }); // warm-up
  const report = (label: string, r: Awaited<ReturnType<typeof run>>) =>
    say(
      `| switch-on at 200/s, ${label} | ${fmt(r.rps, 0)} req/s | p50 ${r.p50} ms, p99 ${r.p99} ms | errors ${r.non2xx + r.errors + r.timeouts + r.unanswered} |`,
    );
  // A, B, A: the machine drifts; the two runs without channels bracket the one with them.
  report('no live channels', await run());
  // Members at machine pages: each channel follows one resource.
  const pages = await openLiveChannels(
    hub,
    token,
    1000,
    (i) => `?resource=${resources[i % resources.length].id}`,
  );
  report(`${pages.count} live channels open, one resource each`, await run());
  say(`| those channels: data received during the run | ${fmt(pages.bytes() / 1024, 0)} kB | | |`);
  pages.close();
  report('no live channels (again)', await run());
  // Home pages or dashboards: each channel follows all 100 resources.
  const homes = await openLiveChannels(hub, token, 1000, () => '');
  report(`${homes.count} live channels open, all resources each`, await run());
  say(`| those channels: data received during the run | ${fmt(homes.bytes() / 1024, 0)} kB | | |`);
  homes.close();

  farm.send('quit');
  await new Promise((r) => farm.child.once('exit', r));
  await hub.proc.stop();
  return lines;
}
