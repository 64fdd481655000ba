import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { hashPassword, storePassword } from '../../hub/src/sign-in/passwords.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

const origin = 'http://hub.test';

/**
 * One person (an e-mail address) with member records in several accounts: POST /user/accounts
 * lists those their password opens, and POST /user/login {account} signs in to one of them.
 */
describeEachDialect('several accounts: listing and switching', (dialect) => {
  let t: TestHub;
  const email = 'dana@several.example';
  const shared = 'walnut ledger lantern 42';
  const other = 'a different passphrase 7';
  const accounts = { a: 0, b: 0, c: 0, d: 0 };
  const members = { a: 0, b: 0, c: 0, d: 0 };
  let danaToken = '';

  const inject = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: method as any,
      url: `/api/v1${url}`,
      headers,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const cookieOf = (res: LightMyRequestResponse) =>
    [res.headers['set-cookie']]
      .flat()
      .find((c) => c?.startsWith('makerspace_session='))!
      .slice('makerspace_session='.length)
      .split(';')[0];
  const setPassword = async (member: number, password: string) =>
    storePassword(t.hub.ctx.db, member, await hashPassword(password), new Date().toISOString());

  beforeAll(async () => {
    t = await startTestHub(dialect, { settings: { publicUrl: origin } });
    // Dana owns account A (the test hub's), is admin in B and C, and a locked member in D.
    accounts.a = t.owner.accountId;
    members.a = t.owner.memberId;
    await t.hub.ctx.db
      .updateTable('members')
      .set({ emailAddress: email, emailKey: email })
      .where('id', '=', members.a)
      .execute();
    await t.hub.ctx.db
      .updateTable('accounts')
      .set({ name: 'Fablab A' })
      .where('id', '=', accounts.a)
      .execute();
    danaToken = t.owner.token;
    for (const [key, name, privileges, state] of [
      ['b', 'Fablab B', 'admin', 'active'],
      ['c', 'Fablab C', 'admin', 'active'],
      ['d', 'Fablab D', 'admin', 'locked'],
    ] as const) {
      const owner = await t.newAccount(name, `owner@${key}.several.example`);
      accounts[key] = owner.accountId;
      const created = await inject(
        'POST',
        '/members',
        { firstName: 'Dana', emailAddress: email },
        bearer(owner.token),
      );
      expect(created.statusCode).toBe(201);
      members[key] = created.json().id;
      await inject('PUT', `/members/${members[key]}/privileges`, { privileges }, bearer(owner.token));
      if (state === 'locked') {
        const m = (await inject('GET', `/members/${members[key]}`, undefined, bearer(owner.token))).json();
        expect(
          (
            await inject(
              'PUT',
              `/members/${m.id}`,
              { state: 'locked', lockVersion: m.lockVersion },
              bearer(owner.token),
            )
          ).statusCode,
        ).toBe(200);
      }
    }
    await setPassword(members.a, shared);
    await setPassword(members.b, shared);
    await setPassword(members.c, other);
    await setPassword(members.d, shared);
  });
  afterAll(async () => {
    await t?.close();
    await t?.db.dispose();
  });

  it('counts, without naming them, the other accounts the address could switch to', async () => {
    // B and C (each with a password); not D, whose member is locked.
    const res = await inject('GET', '/user/other-accounts', undefined, bearer(danaToken));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ count: 2 });
    const loner = await t.newMemberWithToken('Lone', 'Member');
    expect((await inject('GET', '/user/other-accounts', undefined, bearer(loner.token))).json()).toEqual({
      count: 0,
    });
    expect((await inject('GET', '/user/other-accounts')).statusCode).toBe(401);
  });

  it('lists the accounts whose member has this password (not other passwords, not locked members)', async () => {
    const res = await inject('POST', '/user/accounts', { password: shared }, bearer(danaToken));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { account: accounts.a, accountName: 'Fablab A', member: members.a, privileges: 'owner', current: true },
      {
        account: accounts.b,
        accountName: 'Fablab B',
        member: members.b,
        privileges: 'admin',
        current: false,
      },
    ]);
    // C's password opens C (and the caller's own account is always listed as current).
    const withOther = await inject('POST', '/user/accounts', { password: other }, bearer(danaToken));
    expect(withOther.json().map((a: any) => [a.accountName, a.current])).toEqual([
      ['Fablab A', true],
      ['Fablab C', false],
    ]);
  });

  it('a wrong password answers 400 naming the field and lists nothing; bad bodies 400 naming the field; signed out 401', async () => {
    const wrong = await inject('POST', '/user/accounts', { password: 'not it at all' }, bearer(danaToken));
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({
      message: 'Wrong password',
      data: { field: 'password', reason: 'wrong' },
    });
    const empty = await inject('POST', '/user/accounts', { password: '' }, bearer(danaToken));
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message).toContain('password');
    const extra = await inject('POST', '/user/accounts', { password: shared, account: 1 }, bearer(danaToken));
    expect(extra.statusCode).toBe(400);
    expect((await inject('POST', '/user/accounts', { password: shared })).statusCode).toBe(401);
  });

  it('switching is a sign-in to the chosen account: the session then acts in that account', async () => {
    const headers = { origin };
    const toB = await inject(
      'POST',
      '/user/login',
      { emailAddress: email, password: shared, account: accounts.b },
      headers,
    );
    expect(toB.statusCode).toBe(200);
    expect(toB.json().member).toMatchObject({ id: members.b, account: accounts.b, privileges: 'admin' });
    const cookie = { cookie: `makerspace_session=${cookieOf(toB)}` };
    expect((await inject('GET', '/user/me', undefined, cookie)).json()).toMatchObject({
      account: accounts.b,
    });
    // From B the list is the same person's, with B current.
    const list = await inject(
      'POST',
      '/user/accounts',
      { password: shared },
      { ...cookie, ...headers, 'x-csrf-token': toB.json().csrfToken },
    );
    expect(list.json().map((a: any) => [a.accountName, a.current])).toEqual([
      ['Fablab B', true],
      ['Fablab A', false],
    ]);
    // Without `account`: the first member (by id) whose password matches, as before.
    const plain = await inject('POST', '/user/login', { emailAddress: email, password: shared }, headers);
    expect(plain.json().member.account).toBe(accounts.a);
    // Another account's password does not open C; a locked member never signs in.
    for (const [account, password] of [
      [accounts.c, shared],
      [accounts.d, shared],
      [999_999, shared],
    ] as const) {
      const refused = await inject(
        'POST',
        '/user/login',
        { emailAddress: email, password, account },
        headers,
      );
      expect(refused.statusCode).toBe(401);
      expect(refused.json().message).toBe('Wrong email address or password');
    }
    const toC = await inject(
      'POST',
      '/user/login',
      { emailAddress: email, password: other, account: accounts.c },
      headers,
    );
    expect(toC.json().member).toMatchObject({ id: members.c, account: accounts.c });
    const badAccount = await inject(
      'POST',
      '/user/login',
      { emailAddress: email, password: shared, account: 'B' },
      headers,
    );
    expect(badAccount.statusCode).toBe(400);
    expect(badAccount.json().message).toContain('account');
  });
});
