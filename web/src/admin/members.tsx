import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from '../api';
import { dateTime } from '../format';
import { adminApi, type MemberRecord, memberName } from './admin-api';
import { billingApi } from './billing-api';
import { Choice } from './choice';
import { t, tOr } from '../i18n/i18n';
import { type FieldSpec, fieldLabel, groupLabel, type Kind, memberFieldGroups } from './member-fields';
import { MemberActivity, MemberChanges, MemberKeyCard, MemberPrivileges } from './member-access';
import { MemberBilling } from './member-billing';
import { MemberImport } from './member-import';
import { MemberPackages } from './member-packages';
import { MemberTrainings } from './member-trainings';
import './members.css';
import { Pager } from './pager';

const PAGE = 25;

/** Members: server-side search, a paged list, create, edit, invite, and one member's details. */
export function MembersPage() {
  const [q, setQ] = useState('');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<{ members: MemberRecord[]; total: number } | null>(null);
  const [selected, setSelected] = useState<MemberRecord | null>(null);
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // Only the newest request's answer shows: a reload after a save that answers after a newer
  // search must not put the older list back.
  const asked = useRef(0);
  const load = () => {
    const mine = ++asked.current;
    return adminApi
      .memberPage(q.trim(), offset, PAGE)
      .then(({ body, total }) => {
        if (mine === asked.current) setPage({ members: body, total: total ?? body.length });
      })
      .catch((e: ApiError) => setError(e.message));
  };
  useEffect(() => {
    const t = setTimeout(load, 150);
    return () => clearTimeout(t);
  }, [q, offset]);

  // A link to one member's page (e.g. from the open balances): /admin/members?member=12.
  useEffect(() => {
    const id = Number(new URLSearchParams(window.location.search).get('member'));
    if (id > 0)
      billingApi
        .member(id)
        .then(setSelected)
        .catch((e: ApiError) => setError(e.message));
  }, []);

  const saved = (m: MemberRecord) => {
    setSelected(m);
    setCreating(false);
    void load();
  };

  return (
    <main class="admin">
      <h1>{t('admin.members.title')}</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class={`admin-grid${selected || creating || importing ? ' member-open' : ''}`}>
        <section aria-labelledby="list-h">
          <h2 id="list-h">
            {page ? t('admin.members.count', { count: page.total }) : t('admin.members.title')}
          </h2>
          <div class="actions">
            <label class="grow">
              {t('admin.members.search')}
              <input
                type="search"
                value={q}
                onInput={(e) => {
                  setQ((e.target as HTMLInputElement).value);
                  setOffset(0);
                }}
              />
            </label>
            <button
              type="button"
              class="primary"
              onClick={() => {
                setCreating(true);
                setImporting(false);
                setSelected(null);
              }}
            >
              {t('admin.members.newMember')}
            </button>
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setImporting(true);
                setCreating(false);
                setSelected(null);
              }}
            >
              {t('admin.members.import')}
            </button>
          </div>
          <table class="list" aria-label={t('admin.members.title')}>
            <thead>
              <tr>
                <th scope="col">{t('admin.members.name')}</th>
                <th scope="col">{t('admin.members.email')}</th>
                <th scope="col">{t('admin.members.number')}</th>
                <th scope="col">{t('admin.members.stateCol')}</th>
              </tr>
            </thead>
            <tbody>
              {page?.members.map((m) => (
                <tr key={m.id} aria-selected={selected?.id === m.id}>
                  <td data-label={t('admin.members.name')}>
                    <button
                      type="button"
                      class="link"
                      onClick={() => {
                        setSelected(m);
                        setCreating(false);
                        setImporting(false);
                      }}
                    >
                      {memberName(m)}
                    </button>
                  </td>
                  <td data-label={t('admin.members.email')}>{m.emailAddress ?? ''}</td>
                  <td data-label={t('admin.members.number')}>{m.memberNumber ?? ''}</td>
                  <td data-label={t('admin.members.stateCol')}>{stateWord(m.state)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager
            label={t('admin.members.pages')}
            offset={offset}
            size={PAGE}
            total={page?.total}
            onOffset={setOffset}
          />
        </section>
        <section aria-label={t('admin.members.details')}>
          {importing && <MemberImport onImported={() => void load()} onClose={() => setImporting(false)} />}
          {creating && <MemberForm member={null} onSaved={saved} />}
          {selected && !creating && <MemberDetails key={selected.id} member={selected} onSaved={saved} />}
        </section>
      </div>
    </main>
  );
}

const allFields = memberFieldGroups.flatMap(([, f]) => f);

/** A member's state ("active", "locked", "pending") in the console's language. */
const stateWord = (state: string) => tOr(`admin.members.state.${state}`, state);

/** A record's value as the form's text (or flag). */
function formValue(member: MemberRecord | null, key: string, kind: Kind | undefined): string | boolean {
  const v = (member as Record<string, unknown> | null)?.[key];
  if (kind === 'check') return v === undefined ? key === 'allowLogin' : Boolean(v);
  if (kind === 'state') return String(v ?? 'active');
  if (kind === 'json') return v == null ? '' : JSON.stringify(v, null, 2);
  return v == null ? '' : String(v);
}

/** The form's values as the API's body: empty text is null (an empty last name stays ''). */
function bodyOf(values: Record<string, string | boolean>, creating: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, label, kind] of allFields) {
    const v = values[key];
    if (typeof v === 'boolean') {
      body[key] = v;
      continue;
    }
    const text = v.trim();
    if (creating && text === '') continue;
    if (kind === 'json') {
      try {
        body[key] = text === '' ? null : JSON.parse(text);
      } catch {
        throw new Error(t('admin.members.notJson', { label: fieldLabel(key, label) }));
      }
    } else if (key === 'firstName' || key === 'lastName') body[key] = text;
    else body[key] = text === '' ? null : text;
  }
  return body;
}

export function MemberForm({
  member,
  onSaved,
}: {
  member: MemberRecord | null;
  onSaved: (m: MemberRecord) => void;
}) {
  const [values, setValues] = useState<Record<string, string | boolean>>(() =>
    Object.fromEntries(allFields.map(([k, , kind]) => [k, formValue(member, k, kind)])),
  );
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const set = (k: string, v: string | boolean) => {
    setSaved(false);
    setError(null);
    setValues({ ...values, [k]: v });
  };
  async function save(e: Event) {
    e.preventDefault();
    setError(null);
    try {
      const body = bodyOf(values, member === null);
      if (body.state === 'pending') delete body.state;
      const result =
        member === null
          ? await adminApi.createMember(body)
          : await adminApi.updateMember(member.id, { ...body, lockVersion: member.lockVersion });
      setSaved(true);
      onSaved(result);
    } catch (err) {
      setError((err as Error).message);
    }
  }
  const input = ([k, english, kind]: FieldSpec) => {
    const v = values[k];
    const label = fieldLabel(k, english);
    if (kind === 'check')
      return (
        <label key={k} class="check">
          <input
            type="checkbox"
            checked={v === true}
            onChange={(e) => set(k, (e.target as HTMLInputElement).checked)}
          />
          {label}
        </label>
      );
    if (kind === 'gender' || kind === 'state') {
      // A signed-up member waits as `pending` until approved in the sign-up queue (not settable here).
      const states = v === 'pending' ? ['pending', 'active', 'locked'] : ['active', 'locked'];
      const options = kind === 'gender' ? ['', 'female', 'male', 'other'] : states;
      return (
        <Choice
          key={k}
          label={label}
          value={String(v)}
          options={options.map((o) => [
            o,
            kind === 'gender' ? t(`admin.members.gender.${(o || 'none') as 'none'}`) : stateWord(o),
          ])}
          onChange={(value) => set(k, value)}
        />
      );
    }
    if (kind === 'area' || kind === 'json')
      return (
        <label key={k} class="wide">
          {label}
          <textarea
            rows={kind === 'json' ? 3 : 2}
            class={kind === 'json' ? 'command' : undefined}
            value={String(v)}
            onInput={(e) => set(k, (e.target as HTMLTextAreaElement).value)}
          />
        </label>
      );
    return (
      <label key={k}>
        {label}
        <input
          value={String(v)}
          type={kind ?? 'text'}
          required={k === 'firstName'}
          onInput={(e) => set(k, (e.target as HTMLInputElement).value)}
        />
      </label>
    );
  };
  const title = member ? t('admin.members.edit', { name: memberName(member) }) : t('admin.members.newMember');
  return (
    <form onSubmit={save} aria-label={title} class="member-form">
      <h2>{title}</h2>
      {memberFieldGroups.map(([legend, group]) => (
        <fieldset key={legend} class="field-group">
          <legend>{groupLabel(legend)}</legend>
          {group
            .filter(([k]) => member !== null || k !== 'state')
            .filter(
              ([k]) =>
                !k.startsWith('billing') || k === 'billingInvoiceText' || values.hasBillingAddress === true,
            )
            .map(input)}
        </fieldset>
      ))}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {saved && member && (
        <p class="notice" aria-live="polite">
          {t('admin.members.saved', { name: memberName(member) })}
        </p>
      )}
      <button type="submit" class="primary">
        {member ? t('admin.members.save') : t('admin.members.create')}
      </button>
    </form>
  );
}

function MemberDetails({ member, onSaved }: { member: MemberRecord; onSaved: (m: MemberRecord) => void }) {
  const [invite, setInvite] = useState<string | null>(null);
  const [link, setLink] = useState<string | null>(null);

  async function sendInvite() {
    setInvite(null);
    setLink(null);
    try {
      const result = await adminApi.invite(member.id);
      if (result.emailSent) setInvite(t('admin.members.invited', { email: member.emailAddress }));
      else {
        const days = Math.max(1, Math.round((Date.parse(result.expiresAt) - Date.now()) / 86_400_000));
        setInvite(t('admin.members.noMail', { count: days, until: dateTime(result.expiresAt) }));
        setLink(result.link ?? null);
      }
    } catch (e) {
      setInvite(t('admin.members.inviteFailed', { error: (e as ApiError).message }));
    }
  }

  return (
    <>
      <MemberForm member={member} onSaved={onSaved} />
      <MemberPrivileges member={member} />
      <div class="actions">
        <button
          type="button"
          class="secondary"
          onClick={() => void sendInvite()}
          disabled={!member.emailAddress}
        >
          {t('admin.members.invite', { name: memberName(member) })}
        </button>
      </div>
      {invite && (
        <p role="status" class="notice">
          {invite}
        </p>
      )}
      {link && (
        <label>
          {t('admin.members.inviteLink')}
          <textarea class="command" readOnly rows={3} value={link} />
        </label>
      )}
      <MemberPackages member={member} />
      <MemberTrainings member={member} />
      <MemberActivity member={member} />
      <MemberKeyCard member={member} />
      <MemberChanges member={member} />
      <MemberBilling member={member} />
    </>
  );
}
