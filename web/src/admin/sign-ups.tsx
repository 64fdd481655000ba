import { useEffect, useState } from 'preact/hooks';
import type {
  HouseRulesRecord,
  PackageRecord,
  SignUpRecord,
  SignUpSettingsRecord,
  SpaceRecord,
  TrainingCourseRecord,
} from '../api';
import { call } from '../api';
import { dateTime } from '../format';
import { Alert, useApiCall } from './form-parts';
import './sign-ups.css';
import { t } from '../i18n/i18n';

const signUpsApi = {
  list: (status: string) => call<SignUpRecord[]>('GET', `/sign-ups${status ? `?status=${status}` : ''}`),
  confirmEmail: (id: number) => call<SignUpRecord>('POST', `/sign-ups/${id}/confirm-email`),
  approve: (id: number) => call<SignUpRecord>('POST', `/sign-ups/${id}/approve`),
  reject: (id: number, reason: string | null) =>
    call<SignUpRecord>('POST', `/sign-ups/${id}/reject`, { reason }),
  spaces: () => call<SpaceRecord[]>('GET', '/spaces?limit=100'),
  packages: () => call<PackageRecord[]>('GET', '/packages?limit=1000'),
  courses: () => call<TrainingCourseRecord[]>('GET', '/training-courses?limit=1000'),
  settings: (space: number) => call<SignUpSettingsRecord>('GET', `/spaces/${space}/sign-up-settings`),
  saveSettings: (space: number, body: Record<string, unknown>) =>
    call<SignUpSettingsRecord>('PUT', `/spaces/${space}/sign-up-settings`, body),
  saveRules: (space: number, body: { houseRules: string; waiver: string }) =>
    call<HouseRulesRecord>('PUT', `/spaces/${space}/house-rules`, body),
};

const checklistNames = (): [keyof SignUpRecord['checklist'], string][] =>
  (['emailConfirmed', 'houseRulesAccepted', 'training', 'keyCard', 'firstPayment'] as const).map((k) => [
    k,
    t(`admin.sign_ups.item.${k}`),
  ]);

/** One person's checklist: each item the space asks for, done or not. */
function Checklist({ s }: { s: SignUpRecord }) {
  return (
    <ul class="checklist">
      {checklistNames()
        .filter(([k]) => s.checklist[k] !== null)
        .map(([k, name]) => (
          <li key={k} class={s.checklist[k] ? 'done' : 'open'}>
            <span aria-hidden="true">{s.checklist[k] ? '✓' : '✗'}</span> {name}
            {k === 'emailConfirmed' && !s.checklist[k] ? t('admin.sign_ups.notConfirmed') : ''}
          </li>
        ))}
    </ul>
  );
}

/** The queue of sign-ups with their checklists; Approve (once complete), Reject, confirm by hand. */
function Queue() {
  const [status, setStatus] = useState('pending');
  const [list, setList] = useState<SignUpRecord[] | null>(null);
  const { error, run } = useApiCall();
  const load = () => run(async () => setList(await signUpsApi.list(status)));
  useEffect(() => {
    void load();
  }, [status]);
  const act = (action: () => Promise<unknown>) => run(action).then((ok) => ok && load());
  return (
    <section aria-labelledby="queue-title">
      <h2 id="queue-title">{t('admin.sign_ups.queue')}</h2>
      <label>
        {t('admin.sign_ups.show')}
        <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
          <option value="pending">{t('admin.sign_ups.waiting')}</option>
          <option value="approved">{t('admin.sign_ups.approved')}</option>
          <option value="rejected">{t('admin.sign_ups.rejected')}</option>
          <option value="">{t('admin.sign_ups.all')}</option>
        </select>
      </label>
      <Alert text={error} />
      {list?.length === 0 && <p>{t('admin.sign_ups.noSignUpsHere')}</p>}
      {list && list.length > 0 && (
        <table class="list sign-ups">
          <thead>
            <tr>
              <th>{t('admin.sign_ups.person')}</th>
              <th>{t('admin.sign_ups.package')}</th>
              <th>{t('admin.sign_ups.checklist')}</th>
              <th>{t('admin.sign_ups.decision')}</th>
            </tr>
          </thead>
          <tbody>
            {list.map((s) => (
              <tr key={s.id}>
                <td data-label={t('admin.sign_ups.person')}>
                  <strong>
                    {s.firstName} {s.lastName}
                  </strong>
                  <br />
                  {s.emailAddress}
                  <br />
                  <small>{t('admin.sign_ups.signedUp', { when: dateTime(s.createdAt) })}</small>
                </td>
                <td data-label={t('admin.sign_ups.package')}>{s.package?.name ?? '—'}</td>
                <td data-label={t('admin.sign_ups.checklist')}>
                  <Checklist s={s} />
                </td>
                <td data-label={t('admin.sign_ups.decision')}>
                  {s.status === 'pending' ? (
                    <div class="actions">
                      {!s.checklist.emailConfirmed && (
                        <button type="button" onClick={() => act(() => signUpsApi.confirmEmail(s.id))}>
                          {t('admin.sign_ups.confirmEMailBy')}
                        </button>
                      )}
                      <button
                        type="button"
                        class="primary"
                        disabled={s.missing.length > 0}
                        title={
                          s.missing.length > 0
                            ? t('admin.sign_ups.waitingFor', { what: s.missing.join(', ') })
                            : undefined
                        }
                        onClick={() => act(() => signUpsApi.approve(s.id))}
                      >
                        {t('admin.sign_ups.approve', { name: s.firstName })}
                      </button>
                      <button
                        type="button"
                        class="danger"
                        onClick={() => {
                          const reason = window.prompt(
                            t('admin.sign_ups.rejectPrompt', { name: `${s.firstName} ${s.lastName}` }),
                          );
                          if (reason !== null) void act(() => signUpsApi.reject(s.id, reason || null));
                        }}
                      >
                        {t('admin.sign_ups.reject')}
                      </button>
                      {s.missing.length > 0 && (
                        <small>{t('admin.sign_ups.waitingFor', { what: s.missing.join(', ') })}</small>
                      )}
                    </div>
                  ) : (
                    <span>
                      {s.status === 'approved' ? t('admin.sign_ups.approved') : t('admin.sign_ups.rejected')}{' '}
                      {s.decidedAt ? dateTime(s.decidedAt) : ''}
                      {s.rejectReason ? ` — ${s.rejectReason}` : ''}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The space's sign-up settings, house rules and waiver. */
function Settings({ space }: { space: SpaceRecord }) {
  const [settings, setSettings] = useState<SignUpSettingsRecord | null>(null);
  const [packages, setPackages] = useState<PackageRecord[]>([]);
  const [courses, setCourses] = useState<TrainingCourseRecord[]>([]);
  const [houseRules, setHouseRules] = useState('');
  const [waiver, setWaiver] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const { error, run } = useApiCall();
  useEffect(() => {
    void run(async () => {
      const [s, p, c] = await Promise.all([
        signUpsApi.settings(space.id),
        signUpsApi.packages(),
        signUpsApi.courses(),
      ]);
      setSettings(s);
      setPackages(p.filter((x) => x.state === 'active'));
      setCourses(c);
      setHouseRules(s.houseRules.houseRules);
      setWaiver(s.houseRules.waiver);
    });
  }, [space.id]);
  if (!settings) return <Alert text={error} />;
  const set = (changes: Partial<SignUpSettingsRecord>) => setSettings({ ...settings, ...changes });
  const save = (event: Event) => {
    event.preventDefault();
    setSaved(null);
    void run(async () => {
      const rules = await signUpsApi.saveRules(space.id, { houseRules, waiver });
      const next = await signUpsApi.saveSettings(space.id, {
        enabled: settings.enabled,
        packages: settings.packages,
        requireTraining: settings.requireTraining,
        requireKeyCard: settings.requireKeyCard,
        requireFirstPayment: settings.requireFirstPayment,
      });
      setSettings(next);
      setHouseRules(rules.houseRules);
      setWaiver(rules.waiver);
      setSaved(t('admin.sign_ups.savedVersion', { version: rules.version }));
    });
  };
  const check = (label: string, value: boolean, onChange: (v: boolean) => void) => (
    <label class="check">
      <input
        type="checkbox"
        checked={value}
        onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
      />{' '}
      {label}
    </label>
  );
  return (
    <form onSubmit={save} aria-labelledby="settings-title">
      <h2 id="settings-title">{t('admin.sign_ups.signUpAt', { space: space.name })}</h2>
      {check(t('admin.sign_ups.strangersMay'), settings.enabled, (enabled) => set({ enabled }))}
      <p>
        {t('admin.sign_ups.joinPage')} <a href="/join">{t('admin.sign_ups.join')}</a>
      </p>
      <fieldset class="flags">
        <legend>{t('admin.sign_ups.packagesOffered')}</legend>
        {packages.map((p) =>
          check(p.name, settings.packages.includes(p.id), (on) =>
            set({
              packages: on ? [...settings.packages, p.id] : settings.packages.filter((id) => id !== p.id),
            }),
          ),
        )}
      </fieldset>
      <fieldset class="flags">
        <legend>{t('admin.sign_ups.beforeApprovalActivatesA')}</legend>
        <label>
          {t('admin.sign_ups.trainingCourse')}
          <select
            value={settings.requireTraining ?? ''}
            onChange={(e) => {
              const v = (e.target as HTMLSelectElement).value;
              set({ requireTraining: v ? Number(v) : null });
            }}
          >
            <option value="">{t('admin.sign_ups.none')}</option>
            {courses.map((c) => (
              <option key={c.id} value={c.id}>
                {c.title}
              </option>
            ))}
          </select>
        </label>
        {check(t('admin.sign_ups.requireKeyCard'), settings.requireKeyCard, (requireKeyCard) =>
          set({ requireKeyCard }),
        )}
        {check(t('admin.sign_ups.requireFirstPayment'), settings.requireFirstPayment, (requireFirstPayment) =>
          set({ requireFirstPayment }),
        )}
      </fieldset>
      <label>
        {t('admin.sign_ups.houseRules')}
        <textarea
          rows={6}
          value={houseRules}
          onInput={(e) => setHouseRules((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      <label>
        {t('join.waiver')}
        <textarea
          rows={4}
          value={waiver}
          onInput={(e) => setWaiver((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      <p>
        {t('admin.sign_ups.currentVersion', {
          version: settings.houseRules.version || t('admin.sign_ups.noneYet'),
        })}{' '}
        <a href={`/api/v1/spaces/${space.id}/house-rules/acceptances?format=csv`} download>
          {t('admin.sign_ups.downloadWhoAcceptedWhich')}
        </a>
      </p>
      <Alert text={error} />
      {saved && <p role="status">{saved}</p>}
      <button type="submit" class="primary">
        {t('admin.sign_ups.saveSignUpSettings')}
      </button>
    </form>
  );
}

/** Admin console: the sign-up queue and each space's sign-up settings. */
export function SignUpsPage() {
  const [spaces, setSpaces] = useState<SpaceRecord[]>([]);
  const [spaceId, setSpaceId] = useState<number | null>(null);
  const { error, run } = useApiCall();
  useEffect(() => {
    void run(async () => {
      const list = await signUpsApi.spaces();
      setSpaces(list);
      setSpaceId(list[0]?.id ?? null);
    });
  }, []);
  const space = spaces.find((s) => s.id === spaceId);
  return (
    <main class="admin sign-ups-page">
      <h1>{t('admin.sign_ups.signUps')}</h1>
      <Alert text={error} />
      <Queue />
      {spaces.length > 1 && (
        <label>
          {t('admin.sign_ups.space')}
          <select
            value={spaceId ?? ''}
            onChange={(e) => setSpaceId(Number((e.target as HTMLSelectElement).value))}
          >
            {spaces.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {space && <Settings space={space} />}
    </main>
  );
}
