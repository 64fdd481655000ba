import { useEffect, useState } from 'preact/hooks';
import type { MemberKeyRecord, MemberRecord } from '../api';
import { Field } from '../field';
import { adminApi, memberName } from './admin-api';
import { reasonWords } from './feed';
import { useSpaceZone, zonedText } from './billing-actions';
import { Alert, errorText } from './form-parts';
import { Choice } from './choice';
import { fieldLabel, memberFieldGroups } from './member-fields';
import { type MemberChange, membersApi, type Privileges } from './members-api';
import { rich, slot, t, tOr } from '../i18n/i18n';

const roles = (): [Privileges, string][] =>
  (['member', 'admin', 'owner'] as const).map((p) => [p, t(`admin.member_access.role.${p}`)]);

/** A member's privileges. The hub refuses changing one's own and taking away the last owner, with the reason. */
export function MemberPrivileges({ member }: { member: MemberRecord }) {
  const [current, setCurrent] = useState<Privileges | null>(null);
  const [wanted, setWanted] = useState<Privileges>('member');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  useEffect(() => {
    membersApi
      .privileges(member.id)
      .then(({ privileges }) => {
        setCurrent(privileges);
        setWanted(privileges);
      })
      .catch((e) => setError(errorText(e)));
  }, [member.id]);
  async function save(e: Event) {
    e.preventDefault();
    setError(null);
    setDone(null);
    try {
      const { privileges } = await membersApi.setPrivileges(member.id, wanted);
      setCurrent(privileges);
      setDone(t(`admin.member_access.nowRole.${privileges}`, { name: memberName(member) }));
    } catch (err) {
      setError(errorText(err));
      if (current) setWanted(current);
    }
  }
  const name = memberName(member);
  return (
    <form class="action-form" aria-label={t('admin.member_access.privilegesOf', { name })} onSubmit={save}>
      <h3>{t('admin.member_access.privileges')}</h3>
      <Choice
        label={t('admin.member_access.privileges')}
        value={wanted}
        options={roles()}
        onChange={(v) => setWanted(v as Privileges)}
      />
      <Alert text={error} />
      {done && (
        <p class="notice" aria-live="polite">
          {done}
        </p>
      )}
      <button type="submit" class="secondary" disabled={current === null || wanted === current}>
        {t('admin.member_access.savePrivileges', { name })}
      </button>
    </form>
  );
}

/** The member's key card: its id and state, and marking it lost or removing it. */
export function MemberKeyCard({ member }: { member: MemberRecord }) {
  const [key, setKey] = useState<MemberKeyRecord | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    membersApi
      .key(member.id)
      .then((k) => setKey(k ?? null))
      .catch((e) => setError(errorText(e)));
  useEffect(() => {
    void load();
  }, [member.id]);
  const name = memberName(member);
  async function act(what: 'lost' | 'remove') {
    const question =
      what === 'lost'
        ? t('admin.member_access.confirmLost', { name })
        : t('admin.member_access.confirmRemove', { name });
    if (!window.confirm(question)) return;
    try {
      if (what === 'lost') await membersApi.keyLost(member.id);
      else await membersApi.removeKey(member.id);
      await load();
    } catch (e) {
      setError(errorText(e));
    }
  }
  return (
    <section aria-label={t('admin.member_access.keyCardOf', { name })}>
      <h3>{t('admin.member_access.keyCard')}</h3>
      {key === null && (
        <p class="muted">
          {rich(t('admin.member_access.noCardYet', { page: slot('page') }), {
            page: <a href="/admin/keys">{t('admin.member_access.keyCards')}</a>,
          })}
        </p>
      )}
      {key && (
        <>
          <dl class="facts">
            <dt>{t('admin.member_access.card')}</dt>
            <dd class="secret">{key.token}</dd>
            <dt>{t('admin.member_access.type')}</dt>
            <dd>{key.type}</dd>
            <dt>{t('admin.member_access.state')}</dt>
            <dd>
              {key.state === 'active' ? t('admin.member_access.active') : t('admin.member_access.inactive')}
            </dd>
          </dl>
          <div class="actions">
            {key.state === 'active' && (
              <button type="button" class="secondary" onClick={() => void act('lost')}>
                {t('admin.member_access.markLost', { name })}
              </button>
            )}
            <button type="button" class="danger" onClick={() => void act('remove')}>
              {t('admin.member_access.removeCard', { name })}
            </button>
          </div>
        </>
      )}
      <Alert text={error} />
    </section>
  );
}

/** Fields a scheduled change can set, with their labels (the member form's, but the space). */
const changeable = memberFieldGroups.flatMap(([, fields]) => fields).filter(([k]) => k !== 'metadata');
const labelOf = (key: string) => fieldLabel(key, changeable.find(([k]) => k === key)?.[1] ?? key);
const shown = (v: unknown) => (v === null || v === undefined || v === '' ? 'empty' : String(v));

/** Scheduled changes: member fields written on a date (e.g. locked at the end of the month). */
export function MemberChanges({ member }: { member: MemberRecord }) {
  const [changes, setChanges] = useState<MemberChange[] | null>(null);
  const [date, setDate] = useState('');
  const [field, setField] = useState('state');
  const [value, setValue] = useState('locked');
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    membersApi
      .changes(member.id)
      .then(setChanges)
      .catch((e) => setError(errorText(e)));
  useEffect(() => {
    void load();
  }, [member.id]);
  const kind = changeable.find(([k]) => k === field)?.[2];
  const choices: string[] | null =
    kind === 'check'
      ? ['true', 'false']
      : kind === 'state'
        ? ['active', 'locked']
        : kind === 'gender'
          ? ['female', 'male', 'other', '']
          : null;
  async function add(e: Event) {
    e.preventDefault();
    setError(null);
    const v = value.trim();
    const typed =
      kind === 'check' ? v === 'true' : v === '' && field !== 'firstName' && field !== 'lastName' ? null : v;
    try {
      await membersApi.scheduleChange(member.id, date, { [field]: typed });
      setDate('');
      await load();
    } catch (err) {
      setError(errorText(err));
    }
  }
  async function remove(c: MemberChange) {
    try {
      await membersApi.removeChange(member.id, c.id);
      await load();
    } catch (err) {
      setError(errorText(err));
    }
  }
  const name = memberName(member);
  return (
    <section aria-label={t('admin.member_access.scheduledOf', { name })}>
      <h3>{t('admin.member_access.scheduledChanges')}</h3>
      <ul class="rows">
        {changes?.length === 0 && <li class="muted">{t('admin.member_access.noneChangesApplyAt')}</li>}
        {changes?.map((c) => {
          const what = Object.entries(c.changes)
            .map(([k, [, to]]) => `${labelOf(k)} → ${shown(to)}`)
            .join(', ');
          return (
            <li key={c.id}>
              <span>
                {c.date}: {what} {c.state === 'applied' ? t('admin.member_access.applied') : ''}
              </span>
              {c.state === 'scheduled' && (
                <button type="button" class="link" onClick={() => void remove(c)}>
                  {t('admin.member_access.cancelChange', { date: c.date })}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <form class="action-form" aria-label={t('admin.member_access.scheduleFor', { name })} onSubmit={add}>
        <div class="pair">
          <Field label={t('admin.member_access.appliesOn')} type="date" value={date} set={setDate} required />
          <Choice
            label={t('admin.member_access.field')}
            value={field}
            options={changeable.map(([k, label]) => [k, label])}
            onChange={(k) => {
              setField(k);
              const next = changeable.find(([f]) => f === k)?.[2];
              setValue(next === 'check' ? 'false' : next === 'state' ? 'locked' : '');
            }}
          />
          {choices ? (
            <Choice
              label={t('admin.member_access.newValue')}
              value={value}
              options={choices.map((c) => [
                c,
                c === 'true' ? 'yes' : c === 'false' ? 'no' : c || 'not given',
              ])}
              onChange={setValue}
            />
          ) : (
            <Field label={t('admin.member_access.newValue')} value={value} set={setValue} />
          )}
        </div>
        <Alert text={error} />
        <button type="submit" class="secondary">
          {t('admin.member_access.scheduleChange')}
        </button>
      </form>
    </section>
  );
}

type Log = Awaited<ReturnType<typeof adminApi.memberLogs>>[number];

/** One line of a member's activity: where, what, and why when refused. */
function activityText(log: Log, resource: string): string {
  if (log.type === 'allowed')
    return log.stoppedAt
      ? t('admin.member_access.used', { resource })
      : t('admin.member_access.stillOn', { resource });
  if (log.type === 'denied')
    return t('admin.member_access.refused', { resource, reason: reasonWords(log.reason) });
  return `${resource}: ${tOr(`log.type.${log.type}`, log.type.replace(/([A-Z])/g, ' $1').toLowerCase())}`;
}

/** The member's last ten resource log entries, newest first, with the resource's name. */
export function MemberActivity({ member }: { member: MemberRecord }) {
  const zone = useSpaceZone();
  const [logs, setLogs] = useState<Log[] | null>(null);
  const [names, setNames] = useState<Map<number, string>>(new Map());
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    Promise.all([adminApi.memberLogs(member.id), adminApi.resources()])
      .then(([l, resources]) => {
        setNames(new Map(resources.map((r) => [r.id, r.name])));
        setLogs(l);
      })
      .catch((e) => setError(errorText(e)));
  }, [member.id]);
  return (
    <section aria-label={t('admin.member_access.activityOf', { name: memberName(member) })}>
      <h3>{t('admin.member_access.recentActivity')}</h3>
      <ul class="rows">
        {logs?.length === 0 && <li class="muted">{t('admin.member_access.noneYet')}</li>}
        {logs?.map((l) => (
          <li key={l.id}>
            {zonedText(l.createdAt, zone)}:{' '}
            {activityText(l, names.get(l.resource) ?? t('common.resource', { id: l.resource }))}
          </li>
        ))}
      </ul>
      <Alert text={error} />
    </section>
  );
}
