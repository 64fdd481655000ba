import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from '../api';
import { dateTime } from '../format';
import { useLive } from '../live';
import {
  adminApi,
  type MemberKeyRecord,
  type MemberRecord,
  memberName,
  type ResourceRecord,
  type UnknownCard,
} from './admin-api';
import { t } from '../i18n/i18n';

/** Key cards: assign by tapping at a reader, recent unknown cards, lost and unassign. */
export function KeysPage() {
  const live = useLive();
  const [q, setQ] = useState('');
  const [members, setMembers] = useState<MemberRecord[]>([]);
  const [memberId, setMemberId] = useState<number | null>(null);
  const [readers, setReaders] = useState<ResourceRecord[]>([]);
  const [readerId, setReaderId] = useState<number | null>(null);
  const [unknown, setUnknown] = useState<UnknownCard[]>([]);
  const [key, setKey] = useState<MemberKeyRecord | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [waiting, setWaiting] = useState<{ id: number; until: number; reader: string } | null>(null);
  const [now, setNow] = useState(Date.now());
  const stop = useRef(false);

  const fail = (e: unknown) => setError((e as ApiError).message);
  const loadUnknown = () => adminApi.unknownCards().then(setUnknown).catch(fail);

  useEffect(() => {
    adminApi
      .resources()
      .then((all) => {
        const withBridge = all.filter((r) => live.statuses.get(r.id)?.bridge ?? true);
        setReaders(withBridge);
        setReaderId((id) => id ?? withBridge[0]?.id ?? null);
      })
      .catch(fail);
    void loadUnknown();
    return () => {
      stop.current = true;
    };
  }, []);
  // Server-side search: the list follows what is typed.
  useEffect(() => {
    const t = setTimeout(
      () =>
        adminApi
          .members(q)
          .then((list) => {
            setMembers(list);
            setMemberId((id) => (id !== null && list.some((m) => m.id === id) ? id : (list[0]?.id ?? null)));
          })
          .catch(fail),
      150,
    );
    return () => clearTimeout(t);
  }, [q]);
  const loadKey = () => {
    if (memberId === null) return setKey(null);
    adminApi
      .key(memberId)
      .then(setKey)
      .catch(() => setKey(null));
  };
  useEffect(loadKey, [memberId]);
  // A refused unknown card shows up at once.
  const newest = live.feed[0];
  useEffect(() => {
    if (newest?.kind === 'log' && (newest.log.reason === 'unknownKey' || newest.log.type === 'keyAssigned'))
      void loadUnknown();
  }, [newest?.key]);

  const member = members.find((m) => m.id === memberId) ?? null;

  async function assignByTap() {
    if (!member || readerId === null) return;
    setError(null);
    setMessage(null);
    try {
      const a = await adminApi.startAssignment(member.id, readerId);
      const reader = readers.find((r) => r.id === readerId)?.name ?? t('admin.keys.theReader');
      setWaiting({ id: a.id, until: Date.parse(a.expiresAt), reader });
      while (!stop.current) {
        await new Promise((r) => setTimeout(r, 400));
        setNow(Date.now());
        const state = await adminApi.assignment(a.id);
        if (state.state === 'assigned') {
          setMessage(t('admin.keys.assigned', { token: state.key?.token ?? '', name: memberName(member) }));
          break;
        }
        if (state.state === 'expired') {
          setMessage(t('admin.keys.noCardTapped'));
          break;
        }
      }
    } catch (e) {
      fail(e);
    } finally {
      setWaiting(null);
      loadKey();
      void loadUnknown();
    }
  }

  async function run(what: string, work: () => Promise<unknown>) {
    setError(null);
    try {
      await work();
      setMessage(what);
    } catch (e) {
      fail(e);
    }
    loadKey();
    void loadUnknown();
  }

  return (
    <main class="admin">
      <h1>{t('admin.keys.keyCards')}</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <section aria-labelledby="who-h">
        <h2 id="who-h">{t('admin.keys.member')}</h2>
        <label>
          {t('admin.keys.findMember')}
          <input type="search" value={q} onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          {t('admin.keys.member')}
          <select
            value={memberId ?? ''}
            onChange={(e) => setMemberId(Number((e.target as HTMLSelectElement).value))}
          >
            {members.map((m) => (
              <option key={m.id} value={m.id}>
                {memberName(m)} {m.emailAddress ? `<${m.emailAddress}>` : ''}
              </option>
            ))}
          </select>
        </label>
        {member && (
          <p data-testid="member-key">
            {key
              ? t('admin.keys.cardOf', {
                  name: memberName(member),
                  token: key.token,
                  type: key.type,
                  state: key.state,
                })
              : t('admin.keys.noCard', { name: memberName(member) })}
          </p>
        )}
        {member && key && (
          <div class="actions">
            <button
              type="button"
              class="secondary"
              disabled={key.state !== 'active'}
              onClick={() =>
                void run(t('admin.keys.markedLost', { name: memberName(member) }), () =>
                  adminApi.keyLost(member.id),
                )
              }
            >
              {t('admin.keys.markCardLost')}
            </button>
            <button
              type="button"
              class="secondary"
              onClick={() =>
                void run(t('admin.keys.takenFrom', { name: memberName(member) }), () =>
                  adminApi.removeKey(member.id),
                )
              }
            >
              {t('admin.keys.unassignCard')}
            </button>
          </div>
        )}
      </section>
      <section aria-labelledby="tap-h">
        <h2 id="tap-h">{t('admin.keys.assignACardBy')}</h2>
        <label>
          {t('admin.keys.reader')}
          <select
            value={readerId ?? ''}
            onChange={(e) => setReaderId(Number((e.target as HTMLSelectElement).value))}
          >
            {readers.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          class="primary"
          disabled={!member || readerId === null || waiting !== null}
          onClick={() => void assignByTap()}
        >
          {t('admin.keys.assignByTapping')}
        </button>
        {waiting && (
          <p role="status" class="notice">
            {t('admin.keys.tapNow', {
              reader: waiting.reader,
              seconds: Math.max(0, Math.ceil((waiting.until - now) / 1000)),
            })}
            <button
              type="button"
              class="link"
              onClick={() => {
                void adminApi.cancelAssignment(waiting.id).catch(() => {});
              }}
            >
              {t('admin.keys.cancel')}
            </button>
          </p>
        )}
        {message && !waiting && (
          <p role="status" class="notice">
            {message}
          </p>
        )}
      </section>
      <section aria-labelledby="unknown-h">
        <h2 id="unknown-h">{t('admin.keys.recentUnknownCards')}</h2>
        <ul class="rows" aria-label={t('admin.keys.unknownCards')}>
          {unknown.length === 0 && <li class="muted">{t('admin.keys.noUnknownCardWas')}</li>}
          {unknown.map((c) => (
            <li key={`${c.type}:${c.token}`}>
              <span>
                <code>{c.token}</code>{' '}
                {t('admin.keys.seenAt', {
                  type: c.type,
                  reader: readers.find((r) => r.id === c.resource)?.name ?? t('admin.keys.aReader'),
                  when: dateTime(c.lastSeenAt),
                })}
                {c.taps > 1 ? t('admin.keys.taps', { count: c.taps }) : ''}
              </span>
              <button
                type="button"
                class="secondary"
                disabled={!member}
                onClick={() =>
                  member &&
                  void run(t('admin.keys.assigned', { token: c.token, name: memberName(member) }), () =>
                    adminApi.putKey(member.id, c.type, c.token),
                  )
                }
              >
                {t('admin.keys.assign', {
                  token: c.token,
                  name: member ? memberName(member) : t('admin.keys.theMember'),
                })}
              </button>
            </li>
          ))}
        </ul>
      </section>
    </main>
  );
}
