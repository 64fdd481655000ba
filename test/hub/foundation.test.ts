import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

describeEachDialect('foundation: auth, members, API keys, accounts', (dialect) => {
  let t: TestHub;
  let owner: string;
  beforeAll(async () => {
    t = await startTestHub(dialect);
    owner = t.owner.token;
  });
  afterAll(async () => t?.close());

  const createMember = async (token: string, body: Record<string, unknown>) => {
    const res = await t.call(token, { method: 'POST', url: '/api/v1/members', payload: body });
    return res;
  };
  const memberCount = async () =>
    Number((await t.call(owner, { method: 'GET', url: '/api/v1/members?limit=1' })).headers['x-total-count']);

  describe('authentication', () => {
    it('answers 401 with WWW-Authenticate and the error body without a token', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/members' });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    });

    it('answers 401 for an unknown token', async () => {
      const res = await t.call('00000000-0000-4000-8000-000000000000', {
        method: 'GET',
        url: '/api/v1/user/me',
      });
      expect(res.statusCode).toBe(401);
    });

    it('accepts the token as Bearer and as the Basic-auth username', async () => {
      const basic = Buffer.from(`${owner}:`).toString('base64');
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/v1/members',
        headers: { authorization: `Basic ${basic}` },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()[0].id).toBe(t.owner.memberId);
    });
  });

  it('GET /user/me answers the caller without state and superuser, with members[0]', async () => {
    const res = await t.call(owner, { method: 'GET', url: '/api/v1/user/me' });
    expect(res.statusCode).toBe(200);
    const me = res.json();
    expect(me.id).toBe(t.owner.memberId);
    expect(me.emailAddress).toBe('owner@test.example');
    expect(me).not.toHaveProperty('state');
    expect(me).not.toHaveProperty('superuser');
    expect(me.members[0].id).toBe(t.owner.memberId);
    expect(me.members[0]).not.toHaveProperty('state');
  });

  describe('members and lists', () => {
    beforeAll(async () => {
      for (let i = 1; i <= 120; i++) {
        const res = await createMember(owner, {
          firstName: `First${i}`,
          lastName: i % 2 ? 'Odd' : 'Even',
          emailAddress: `m${i}@test.example`,
          memberNumber: String(1000 + i),
        });
        expect(res.statusCode).toBe(201);
      }
    });

    it('pages with limit, X-Total-Count and a Link rel="next" only while more pages exist', async () => {
      const first = await t.call(owner, { method: 'GET', url: '/api/v1/members?limit=50' });
      expect(first.statusCode).toBe(200);
      expect(first.json()).toHaveLength(50);
      expect(first.headers['x-total-count']).toBe('121');
      const link = String(first.headers.link);
      expect(link).toMatch(/^<http:\/\/[^>]*\/api\/v1\/members\?[^>]*offset=50[^>]*>; rel="next"$/);

      const next = new URL(link.slice(1, link.indexOf('>')));
      const second = await t.call(owner, { method: 'GET', url: `${next.pathname}${next.search}` });
      expect(second.json()[0].id).toBe(first.json()[49].id + 1);

      const last = await t.call(owner, { method: 'GET', url: '/api/v1/members?limit=50&offset=100' });
      expect(last.json()).toHaveLength(21);
      expect(last.headers.link).toBeUndefined();
    });

    it('takes the last value of a repeated scalar parameter', async () => {
      const res = await t.call(owner, { method: 'GET', url: '/api/v1/members?limit=5&limit=7' });
      expect(res.json()).toHaveLength(7);
    });

    it('refuses a limit above 1000 with a clear 400', async () => {
      const res = await t.call(owner, { method: 'GET', url: '/api/v1/members?limit=5000' });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(/limit/);
    });

    it('searches with q, filters, and sorts with orderBy/order', async () => {
      const found = await t.call(owner, { method: 'GET', url: '/api/v1/members?q=first11' });
      expect(
        found
          .json()
          .map((m: any) => m.firstName)
          .sort(),
      ).toEqual([
        'First11',
        'First110',
        'First111',
        'First112',
        'First113',
        'First114',
        'First115',
        'First116',
        'First117',
        'First118',
        'First119',
      ]);
      const even = await t.call(owner, { method: 'GET', url: '/api/v1/members?q=even&limit=1' });
      expect(even.headers['x-total-count']).toBe('60');
      const sorted = await t.call(owner, {
        method: 'GET',
        url: '/api/v1/members?orderBy=memberNumber&order=desc&limit=2',
      });
      expect(sorted.json().map((m: any) => m.memberNumber)).toEqual(['1120', '1119']);
      const byNumber = await t.call(owner, { method: 'GET', url: '/api/v1/members?memberNumber=1005' });
      expect(byNumber.json().map((m: any) => m.firstName)).toEqual(['First5']);
    });

    it('embeds privileges under _embedded', async () => {
      const res = await t.call(owner, {
        method: 'GET',
        url: `/api/v1/members/${t.owner.memberId}?embed=privileges`,
      });
      expect(res.json()._embedded).toEqual({ privileges: { privileges: 'owner' } });
      const bad = await t.call(owner, { method: 'GET', url: '/api/v1/members?embed=nonsense' });
      expect(bad.statusCode).toBe(400);
    });
  });

  describe('bad input changes nothing', () => {
    it('refuses unknown fields on create with 400', async () => {
      const before = await memberCount();
      const res = await createMember(owner, { firstName: 'X', favouriteColour: 'blue' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(res.json().message).toMatch(/favouriteColour/);
      expect(await memberCount()).toBe(before);
    });

    it('refuses a malformed e-mail address and malformed JSON with 400', async () => {
      const before = await memberCount();
      expect((await createMember(owner, { firstName: 'X', emailAddress: 'not-an-address' })).statusCode).toBe(
        400,
      );
      const broken = await t.call(owner, {
        method: 'POST',
        url: '/api/v1/members',
        headers: { 'content-type': 'application/json' },
        payload: '{"firstName": ',
      });
      expect(broken.statusCode).toBe(400);
      expect(broken.json().message).toMatch(/JSON/);
      expect(await memberCount()).toBe(before);
    });

    it('answers 422 with data.duplicateEmailAddress for a taken e-mail address (any case)', async () => {
      const before = await memberCount();
      const res = await createMember(owner, { firstName: 'Dup', emailAddress: 'M1@Test.Example' });
      expect(res.statusCode).toBe(422);
      expect(res.json().data).toEqual({ duplicateEmailAddress: true });
      expect(await memberCount()).toBe(before);
    });

    it('answers 415 for other content types', async () => {
      const res = await t.call(owner, {
        method: 'POST',
        url: '/api/v1/members',
        headers: { 'content-type': 'text/csv' },
        payload: 'a,b',
      });
      expect(res.statusCode).toBe(415);
      expect(res.json().statusCode).toBe(415);
    });

    it('answers unknown routes with the error body', async () => {
      const res = await t.call(owner, { method: 'GET', url: '/api/v1/no-such-thing' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    });
  });

  describe('updates', () => {
    it('locks optimistically: a stale lockVersion gets 409 and changes nothing', async () => {
      const created = (
        await createMember(owner, { firstName: 'Lock', emailAddress: 'lock@test.example' })
      ).json();
      const url = `/api/v1/members/${created.id}`;
      const ok = await t.call(owner, { method: 'PUT', url, payload: { ...created, city: 'Vienna' } });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ city: 'Vienna', lockVersion: created.lockVersion + 1 });
      const stale = await t.call(owner, {
        method: 'PUT',
        url,
        payload: { lockVersion: created.lockVersion, city: 'Graz' },
      });
      expect(stale.statusCode).toBe(409);
      expect((await t.call(owner, { method: 'GET', url })).json().city).toBe('Vienna');
    });

    it('ignores unknown and read-only fields on update (GET, change, PUT back whole)', async () => {
      const created = (await createMember(owner, { firstName: 'Whole' })).json();
      const res = await t.call(owner, {
        method: 'PUT',
        url: `/api/v1/members/${created.id}`,
        payload: {
          ...created,
          id: 999999,
          account: 999,
          createdAt: 'x',
          somethingNew: 1,
          lastName: 'Updated',
        },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: created.id, account: created.account, lastName: 'Updated' });
    });

    it('requires lockVersion on update', async () => {
      const res = await t.call(owner, {
        method: 'PUT',
        url: `/api/v1/members/${t.owner.memberId}`,
        payload: { city: 'X' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(/lockVersion/);
    });

    it('takes form-encoded bodies with values coerced by the schema, and the JSON body false', async () => {
      const res = await t.call(owner, {
        method: 'POST',
        url: '/api/v1/members',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'firstName=Form&lastName=Encoded&taxExempt=true&countryCode=AT&phone=',
      });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({
        firstName: 'Form',
        taxExempt: true,
        countryCode: 'AT',
        phone: null,
      });
      const del = await t.call(owner, {
        method: 'DELETE',
        url: `/api/v1/members/${res.json().id}`,
        headers: { 'content-type': 'application/json' },
        payload: 'false',
      });
      expect(del.statusCode).toBe(204);
      expect(
        (await t.call(owner, { method: 'GET', url: `/api/v1/members/${res.json().id}` })).statusCode,
      ).toBe(404);
    });

    it('keeps only a safe HTML subset in notes', async () => {
      const res = await createMember(owner, {
        firstName: 'Html',
        notes: '<p>Hi <script>alert(1)</script><b>there</b></p>',
      });
      expect(res.json().notes).toBe('<p>Hi <b>there</b></p>');
    });
  });

  describe('visibility between accounts and roles', () => {
    let other: Awaited<ReturnType<TestHub['newAccount']>>;
    let plain: { id: number; token: string };
    let plainKeyId: number;

    beforeAll(async () => {
      other = await t.newAccount('Other space', 'other@test.example');
      const member = (
        await createMember(owner, { firstName: 'Plain', emailAddress: 'plain@test.example' })
      ).json();
      const key = await t.call(owner, {
        method: 'POST',
        url: '/api/v1/api-keys',
        payload: { member: member.id, label: 'phone' },
      });
      expect(key.statusCode).toBe(201);
      plainKeyId = key.json().id;
      const token = (
        await t.call(owner, { method: 'GET', url: `/api/v1/api-keys/${plainKeyId}/token` })
      ).json().token;
      plain = { id: member.id, token };
    });

    it("shows another account's token none of this account's members, and 404 on their ids", async () => {
      const list = await t.call(other.token, { method: 'GET', url: '/api/v1/members?limit=1000' });
      expect(list.json().map((m: any) => m.id)).toEqual([other.memberId]);
      expect(list.headers['x-total-count']).toBe('1');
      const res = await t.call(other.token, { method: 'GET', url: `/api/v1/members/${t.owner.memberId}` });
      expect(res.statusCode).toBe(404);
      const keys = await t.call(other.token, { method: 'GET', url: `/api/v1/api-keys/${plainKeyId}` });
      expect(keys.statusCode).toBe(404);
      const accounts = await t.call(other.token, { method: 'GET', url: '/api/v1/accounts' });
      expect(accounts.json().map((a: any) => a.id)).toEqual([other.accountId]);
      expect(
        (await t.call(other.token, { method: 'GET', url: `/api/v1/accounts/${t.owner.accountId}` }))
          .statusCode,
      ).toBe(404);
    });

    it('lets a plain member see only themselves', async () => {
      const list = await t.call(plain.token, { method: 'GET', url: '/api/v1/members' });
      expect(list.json().map((m: any) => m.id)).toEqual([plain.id]);
      expect(
        (await t.call(plain.token, { method: 'GET', url: `/api/v1/members/${t.owner.memberId}` })).statusCode,
      ).toBe(404);
      expect((await createMember(plain.token, { firstName: 'Nope' })).statusCode).toBe(403);
    });

    it('forbids a plain member to create API keys for others (403) or read their tokens', async () => {
      const res = await t.call(plain.token, {
        method: 'POST',
        url: '/api/v1/api-keys',
        payload: { member: t.owner.memberId },
      });
      expect(res.statusCode).toBe(403);
      const ownerKeys = await t.call(owner, {
        method: 'GET',
        url: `/api/v1/api-keys?member=${t.owner.memberId}`,
      });
      const ownerKeyId = ownerKeys.json()[0].id;
      const token = await t.call(plain.token, { method: 'GET', url: `/api/v1/api-keys/${ownerKeyId}/token` });
      expect(token.statusCode).toBe(404);
      expect(token.body).not.toContain(t.owner.token);
    });

    it('lets a plain member create and read back their own key', async () => {
      const res = await t.call(plain.token, {
        method: 'POST',
        url: '/api/v1/api-keys',
        payload: { label: 'laptop' },
      });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ member: plain.id, label: 'laptop' });
      const token = (
        await t.call(plain.token, { method: 'GET', url: `/api/v1/api-keys/${res.json().id}/token` })
      ).json().token;
      expect(token).toMatch(/^[0-9a-f-]{36}$/);
      const me = await t.call(token, { method: 'GET', url: '/api/v1/user/me' });
      expect(me.json().id).toBe(plain.id);
      const mine = await t.call(plain.token, { method: 'GET', url: '/api/v1/api-keys' });
      expect(new Set(mine.json().map((k: any) => k.member))).toEqual(new Set([plain.id]));
    });

    it('stops a deleted key at once', async () => {
      const key = (
        await t.call(owner, { method: 'POST', url: '/api/v1/api-keys', payload: { label: 'temp' } })
      ).json();
      const token = (await t.call(owner, { method: 'GET', url: `/api/v1/api-keys/${key.id}/token` })).json()
        .token;
      expect((await t.call(token, { method: 'GET', url: '/api/v1/user/me' })).statusCode).toBe(200);
      expect((await t.call(owner, { method: 'DELETE', url: `/api/v1/api-keys/${key.id}` })).statusCode).toBe(
        204,
      );
      expect((await t.call(token, { method: 'GET', url: '/api/v1/user/me' })).statusCode).toBe(401);
    });

    it('shuts out a locked member and lets them back in when unlocked', async () => {
      const member = (await t.call(owner, { method: 'GET', url: `/api/v1/members/${plain.id}` })).json();
      const locked = await t.call(owner, {
        method: 'PUT',
        url: `/api/v1/members/${plain.id}`,
        payload: { lockVersion: member.lockVersion, state: 'locked' },
      });
      expect(locked.json().state).toBe('locked');
      expect((await t.call(plain.token, { method: 'GET', url: '/api/v1/user/me' })).statusCode).toBe(401);
      await t.call(owner, {
        method: 'PUT',
        url: `/api/v1/members/${plain.id}`,
        payload: { lockVersion: locked.json().lockVersion, state: 'active' },
      });
      expect((await t.call(plain.token, { method: 'GET', url: '/api/v1/user/me' })).statusCode).toBe(200);
    });

    it('lets only owners grant owner privileges', async () => {
      const admin = (await createMember(owner, { firstName: 'Admin' })).json();
      expect(
        (
          await t.call(owner, {
            method: 'PUT',
            url: `/api/v1/members/${admin.id}/privileges`,
            payload: { privileges: 'admin' },
          })
        ).statusCode,
      ).toBe(200);
      const key = (
        await t.call(owner, { method: 'POST', url: '/api/v1/api-keys', payload: { member: admin.id } })
      ).json();
      const adminToken = (
        await t.call(owner, { method: 'GET', url: `/api/v1/api-keys/${key.id}/token` })
      ).json().token;
      const grant = await t.call(adminToken, {
        method: 'PUT',
        url: `/api/v1/members/${plain.id}/privileges`,
        payload: { privileges: 'owner' },
      });
      expect(grant.statusCode).toBe(403);
      const list = await t.call(adminToken, { method: 'GET', url: '/api/v1/members?privileges=owner' });
      expect(list.json().map((m: any) => m.id)).toEqual([t.owner.memberId]);
    });
  });

  it('serves the OpenAPI document and the docs page without a token', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(doc.statusCode).toBe(200);
    const openapi = doc.json();
    expect(openapi.openapi).toMatch(/^3\.1/);
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(['/api/v1/members', '/api/v1/api-keys/{apiKeyId}/token', '/api/v1/user/me']),
    );
    expect(
      openapi.paths['/api/v1/members'].post.requestBody.content['application/json'].schema.properties,
    ).toHaveProperty('emailAddress');
    const page = await t.app.inject({ method: 'GET', url: '/api/v1/docs' });
    expect([200, 302]).toContain(page.statusCode);
  });
});
