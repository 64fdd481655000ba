import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from '../api';
import { dateTime } from '../format';
import { adminApi, type MemberRecord, memberName } from './admin-api';
import { logText } from './feed';
import { Pager } from './pager';

const PAGE = 25;

/** Members: server-side search, a paged list, create, edit, invite, and one member's details. */
export function MembersPage() {
  const [q, setQ] = useState('');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<{ members: MemberRecord[]; total: number } | null>(null);
  const [selected, setSelected] = useState<MemberRecord | null>(null);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const load = () =>
    adminApi
      .memberPage(q.trim(), offset, PAGE)
      .then(({ body, total }) => setPage({ members: body, total: total ?? body.length }))
      .catch((e: ApiError) => setError(e.message));
  useEffect(() => {
    const t = setTimeout(load, 150);
    return () => clearTimeout(t);
  }, [q, offset]);

  const saved = (m: MemberRecord) => {
    setSelected(m);
    setCreating(false);
    void load();
  };

  return (
    <main class="admin">
      <h1>Members</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="admin-grid">
        <section aria-labelledby="list-h">
          <h2 id="list-h">{page ? `${page.total} ${page.total === 1 ? 'member' : 'members'}` : 'Members'}</h2>
          <div class="actions">
            <label class="grow">
              Search by name, e-mail, member number or card id
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
                setSelected(null);
              }}
            >
              New member
            </button>
          </div>
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Number</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {page?.members.map((m) => (
                <tr key={m.id} aria-selected={selected?.id === m.id}>
                  <td data-label="Name">
                    <button
                      type="button"
                      class="link"
                      onClick={() => {
                        setSelected(m);
                        setCreating(false);
                      }}
                    >
                      {memberName(m)}
                    </button>
                  </td>
                  <td data-label="E-mail">{m.emailAddress ?? ''}</td>
                  <td data-label="Number">{m.memberNumber ?? ''}</td>
                  <td data-label="State">{m.state}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Pages" offset={offset} size={PAGE} total={page?.total} onOffset={setOffset} />
        </section>
        <section aria-label="Member details">
          {creating && <MemberForm member={null} onSaved={saved} />}
          {selected && !creating && <MemberDetails key={selected.id} member={selected} onSaved={saved} />}
        </section>
      </div>
    </main>
  );
}

const fields = [
  ['firstName', 'First name'],
  ['lastName', 'Last name'],
  ['emailAddress', 'E-mail address'],
  ['memberNumber', 'Member number'],
  ['phone', 'Phone'],
] as const;

function MemberForm({
  member,
  onSaved,
}: {
  member: MemberRecord | null;
  onSaved: (m: MemberRecord) => void;
}) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map(([k]) => [k, String((member as any)?.[k] ?? '')])),
  );
  const [state, setState] = useState(member?.state ?? 'active');
  const [error, setError] = useState<string | null>(null);
  async function save(e: Event) {
    e.preventDefault();
    setError(null);
    const body: Record<string, unknown> = {};
    for (const [k] of fields) {
      const v = values[k].trim();
      if (member === null && v === '') continue;
      body[k] = v === '' && k !== 'firstName' ? null : v;
    }
    try {
      const saved =
        member === null
          ? await adminApi.createMember(body)
          : await adminApi.updateMember(member.id, { ...body, state, lockVersion: member.lockVersion });
      onSaved(saved);
    } catch (err) {
      setError((err as ApiError).message);
    }
  }
  return (
    <form onSubmit={save} aria-label={member ? `Edit ${memberName(member)}` : 'New member'}>
      <h2>{member ? `Edit ${memberName(member)}` : 'New member'}</h2>
      {fields.map(([k, label]) => (
        <label key={k}>
          {label}
          <input
            value={values[k]}
            type={k === 'emailAddress' ? 'email' : 'text'}
            required={k === 'firstName'}
            onInput={(e) => setValues({ ...values, [k]: (e.target as HTMLInputElement).value })}
          />
        </label>
      ))}
      {member && (
        <label>
          State
          <select value={state} onChange={(e) => setState((e.target as HTMLSelectElement).value as any)}>
            <option value="active">active</option>
            <option value="locked">locked</option>
          </select>
        </label>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit" class="primary">
        {member ? 'Save member' : 'Create member'}
      </button>
    </form>
  );
}

function MemberDetails({ member, onSaved }: { member: MemberRecord; onSaved: (m: MemberRecord) => void }) {
  const [invite, setInvite] = useState<string | null>(null);
  const [link, setLink] = useState<string | null>(null);
  const [details, setDetails] = useState<{
    packages: Awaited<ReturnType<typeof adminApi.memberPackages>>;
    trainings: Awaited<ReturnType<typeof adminApi.memberTrainings>>;
    logs: Awaited<ReturnType<typeof adminApi.memberLogs>>;
    charges: Awaited<ReturnType<typeof adminApi.memberCharges>>;
  } | null>(null);
  useEffect(() => {
    Promise.all([
      adminApi.memberPackages(member.id),
      adminApi.memberTrainings(member.id),
      adminApi.memberLogs(member.id),
      adminApi.memberCharges(member.id),
    ])
      .then(([packages, trainings, logs, charges]) => setDetails({ packages, trainings, logs, charges }))
      .catch(() => setDetails(null));
  }, [member.id]);

  async function sendInvite() {
    setInvite(null);
    setLink(null);
    try {
      const result = await adminApi.invite(member.id);
      if (result.emailSent) setInvite(`Invitation mailed to ${member.emailAddress}.`);
      else {
        const days = Math.max(1, Math.round((Date.parse(result.expiresAt) - Date.now()) / 86_400_000));
        setInvite(
          `No mail server is set up: hand this link to the member (valid ${days} day${days === 1 ? '' : 's'}, until ${dateTime(result.expiresAt)}; it works once).`,
        );
        setLink(result.link ?? null);
      }
    } catch (e) {
      setInvite(`Invitation failed: ${(e as ApiError).message}`);
    }
  }

  return (
    <>
      <MemberForm member={member} onSaved={onSaved} />
      <div class="actions">
        <button
          type="button"
          class="secondary"
          onClick={() => void sendInvite()}
          disabled={!member.emailAddress}
        >
          {`Invite ${memberName(member)}`}
        </button>
      </div>
      {invite && (
        <p role="status" class="notice">
          {invite}
        </p>
      )}
      {link && (
        <label>
          Invitation link
          <textarea class="command" readOnly rows={3} value={link} />
        </label>
      )}
      {details && (
        <>
          <h3>Packages</h3>
          <ul class="rows">
            {details.packages.length === 0 && <li class="muted">None.</li>}
            {details.packages.map((p) => (
              <li key={p.id}>
                {p._embedded?.package?.name ?? `Package ${p.id}`}: from {p.fromDate}
                {p.untilDate ? ` until ${p.untilDate}` : ''}
              </li>
            ))}
          </ul>
          <h3>Trainings</h3>
          <ul class="rows">
            {details.trainings.length === 0 && <li class="muted">None.</li>}
            {details.trainings.map((t) => (
              <li key={t.id}>
                Course {t.trainingCourse} on {t.date}
              </li>
            ))}
          </ul>
          <h3>Recent activity</h3>
          <ul class="rows">
            {details.logs.length === 0 && <li class="muted">None.</li>}
            {details.logs.map((l) => (
              <li key={l.id}>
                {dateTime(l.createdAt)}: {logText({ ...l, member: null, offline: false, card: null } as any)}
              </li>
            ))}
          </ul>
          <h3>Charges</h3>
          <ul class="rows">
            {details.charges.length === 0 && <li class="muted">None.</li>}
            {details.charges.map((c) => (
              <li key={c.id}>
                {dateTime(c.dateTime)}: {c.description}, {c.price}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}
