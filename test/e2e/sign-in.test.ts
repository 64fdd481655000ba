import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HubProcess, startHubProcess } from '../support/e2e.js';
import { linkToken, type MailCatcher, startMailCatcher } from '../support/mail.js';
import { stopAll } from '../support/processes.js';

/**
 * The installed hub with HUB_SMTP_URL: an admin invites a member, the mail arrives at a local SMTP
 * server, the member redeems it in a "browser" (fetch with the cookie), sets a password and signs
 * in with it. The hub's own output never shows the link, the session token or the password.
 */
describe('sign-in end to end: invitation mail, link, password, cookie', () => {
  let hub: HubProcess;
  let mail: MailCatcher;

  beforeAll(async () => {
    mail = await startMailCatcher();
    hub = await startHubProcess({
      env: { HUB_SMTP_URL: mail.url, HUB_MAIL_FROM: 'Fablab <access@fablab.test>', LOG_LEVEL: 'debug' },
    });
  });
  afterAll(async () => {
    await stopAll();
    await mail?.close();
  });

  it('invites, redeems, sets a password, signs in, and signs out', async () => {
    const own = `http://127.0.0.1:${hub.httpPort}`;
    const member = (
      await hub.api('POST', '/members', { firstName: 'Noor', emailAddress: 'noor@fablab.test' })
    ).body;
    const invite = await hub.api('POST', `/members/${member.id}/invitation`);
    expect(invite).toMatchObject({ status: 200, body: { status: 'invited', emailSent: true } });
    const sent = await mail.next('noor@fablab.test');
    expect(sent.text).toContain('From: Fablab <access@fablab.test>');
    // Without HUB_PUBLIC_URL the link names localhost and the hub's port, never a request header.
    expect(sent.text).toContain(`http://localhost:${hub.httpPort}/sign-in/link#token=`);
    const token = linkToken(sent);

    const json = { 'content-type': 'application/json', origin: own };
    const redeem = await fetch(`${hub.base}/user/sign-in-links/redeem`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ token }),
    });
    expect(redeem.status).toBe(200);
    const { csrfToken } = (await redeem.json()) as { csrfToken: string };
    const cookie = (redeem.headers.get('set-cookie') ?? '').split(';')[0];
    expect(cookie).toMatch(/^makerspace_session=/);

    const password = await fetch(`${hub.base}/user/password`, {
      method: 'PUT',
      headers: { ...json, cookie, 'x-csrf-token': csrfToken },
      body: JSON.stringify({ password: 'noor builds robots' }),
    });
    expect(password.status).toBe(204);

    const login = await fetch(`${hub.base}/user/login`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ emailAddress: 'NOOR@fablab.test', password: 'noor builds robots' }),
    });
    expect(login.status).toBe(200);
    const second = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const me = await fetch(`${hub.base}/user/me`, { headers: { cookie: second } });
    expect(((await me.json()) as { id: number }).id).toBe(member.id);

    const logout = await fetch(`${hub.base}/user/logout`, {
      method: 'POST',
      headers: { origin: own, cookie: second, 'x-csrf-token': ((await login.json()) as any).csrfToken },
    });
    expect(logout.status).toBe(204);
    expect((await fetch(`${hub.base}/user/me`, { headers: { cookie: second } })).status).toBe(401);

    const output = hub.proc.output();
    expect(output).not.toContain(token);
    expect(output).not.toContain(cookie.split('=')[1]);
    expect(output).not.toContain(second.split('=')[1]);
    expect(output).not.toContain('noor builds robots');
    expect(output).not.toContain('/sign-in/link');
  });
});
