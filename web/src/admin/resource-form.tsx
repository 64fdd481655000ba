import { useEffect, useState } from 'preact/hooks';
import { DoorModeFields } from './door-mode-fields';
import type { ApiError } from '../api';
import { Field } from '../field';
import './activity.css';
import type { ResourceRecord } from './admin-api';
import {
  type ResourceTypeRecord,
  resourcesApi,
  type SpaceRecord,
  type TrainingCourseRecord,
} from './resources-api';
import { t } from '../i18n/i18n';

const controlTypes = (): [string, string][] =>
  (['door', 'machine', 'pos', 'other'] as const).map((c) => [c, t(`admin.resource_form.controlType.${c}`)]);

/** The time units a price counts in (the record keeps seconds). */
const units = [60, 900, 1800, 3600, 86400];
const perUnit = (seconds: number) =>
  seconds === 60
    ? t('admin.resource_form.perMinute')
    : seconds === 3600
      ? t('admin.resource_form.perHour')
      : seconds === 86400
        ? t('admin.resource_form.perDay')
        : seconds % 60 === 0
          ? t('admin.resource_form.perMinutes', { count: seconds / 60 })
          : t('admin.resource_form.perSeconds', { count: seconds });
const unitOptions = (seconds: number): [string, string][] =>
  (units.includes(seconds) ? units : [...units, seconds]).map((s) => [String(s), perUnit(s)]);

type FormValues = {
  name: string;
  space: string;
  type: string;
  controlType: string;
  state: string;
  lockReason: string;
  pulseSeconds: string;
  description: string;
  safetyMessage: string;
  pricePerUsage: string;
  pricePerTimeBusy: string;
  pricePerTimeBusySeconds: string;
  pricePerBooking: string;
  pricePerBookingSeconds: string;
  maxDuration: string;
  maxOfflineUsage: string;
  pricePerTimeIdle: string;
  pricePerTimeIdleSeconds: string;
  idleTimeout: string;
  idleWarningSeconds: string;
  busyGrace: string;
  requiresTraining: boolean;
  canBeBooked: boolean;
  mustBeBooked: boolean;
  exclusiveUsage: boolean;
  visibleForMembers: boolean;
  entrance: boolean;
  unlockMode: string;
};
type Flag = 'requiresTraining' | 'canBeBooked' | 'mustBeBooked' | 'exclusiveUsage' | 'visibleForMembers';

const bookingFlags = ['canBeBooked', 'mustBeBooked', 'exclusiveUsage'] as const;

/** Seconds as minutes for a field ('' for none). */
const minutes = (seconds: number | null | undefined) =>
  seconds === null || seconds === undefined ? '' : String(Math.round(seconds / 60));

/** A minutes field as seconds: null when empty, undefined when it is not a number. */
function seconds(text: string): number | null | undefined {
  const t = text.trim();
  if (t === '') return null;
  const n = Number(t.replace(',', '.'));
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 60) : undefined;
}

function initial(r: ResourceRecord | null, spaces: SpaceRecord[]): FormValues {
  return {
    name: r?.name ?? '',
    space: String(r?.space ?? spaces[0]?.id ?? ''),
    type: r?.type === null || r?.type === undefined ? '' : String(r.type),
    controlType: r?.controlType ?? 'door',
    state: r?.state ?? 'active',
    lockReason: r?.lockReason ?? '',
    pulseSeconds: String(r?.pulseSeconds ?? 5),
    description: r?.description ?? '',
    safetyMessage: r?.safetyMessage ?? '',
    pricePerUsage: r?.pricePerUsage ?? '0',
    pricePerTimeBusy: r?.pricePerTimeBusy ?? '0',
    pricePerTimeBusySeconds: String(r?.pricePerTimeBusySeconds ?? 3600),
    pricePerBooking: r?.pricePerBooking ?? '0',
    pricePerBookingSeconds: String(r?.pricePerBookingSeconds ?? 3600),
    maxDuration: minutes(r?.maxDuration),
    maxOfflineUsage: minutes(r?.maxOfflineUsage),
    pricePerTimeIdle: r?.pricePerTimeIdle ?? '0',
    pricePerTimeIdleSeconds: String(r?.pricePerTimeIdleSeconds ?? 3600),
    idleTimeout: minutes(r?.idleTimeoutSeconds),
    idleWarningSeconds:
      r?.idleWarningSeconds === null || r?.idleWarningSeconds === undefined
        ? ''
        : String(r.idleWarningSeconds),
    busyGrace: minutes(r?.busyGraceSeconds),
    requiresTraining: r?.requiresTraining ?? false,
    canBeBooked: r?.canBeBooked ?? false,
    mustBeBooked: r?.mustBeBooked ?? false,
    exclusiveUsage: r?.exclusiveUsage ?? false,
    visibleForMembers: r?.visibleForMembers ?? true,
    entrance: r?.entrance ?? false,
    unlockMode: r?.unlockMode ?? 'normal',
  };
}

/**
 * A resource's form: what it is, its state (locked with the reason members read), the safety
 * message shown before switch-on, prices, limits, booking rules and the training courses that
 * unlock it (each course lists its resources: the form changes the courses it ticks or unticks).
 */
export function ResourceForm(props: {
  resource: ResourceRecord | null;
  types: ResourceTypeRecord[];
  spaces: SpaceRecord[];
  onSaved: (r: ResourceRecord) => void;
}) {
  const r = props.resource;
  const [v, setV] = useState<FormValues>(() => initial(r, props.spaces));
  const [courses, setCourses] = useState<TrainingCourseRecord[] | null>(null);
  const [unlocking, setUnlocking] = useState<Set<number>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const set = (k: keyof FormValues) => (value: string | boolean) => {
    setSaved(null);
    setV((before) => ({ ...before, [k]: value }));
  };
  const space = v.space || String(props.spaces[0]?.id ?? '');
  const title = r ? t('admin.form_parts.editWhat', { what: r.name }) : t('admin.resource_form.newResource');

  const loadCourses = () =>
    resourcesApi
      .courses()
      .then((all) => {
        setCourses(all);
        setUnlocking(new Set(r ? all.filter((c) => c.resources.includes(r.id)).map((c) => c.id) : []));
      })
      .catch(() => setCourses([]));
  useEffect(() => {
    void loadCourses();
  }, [r?.id]);

  async function save(e: Event) {
    e.preventDefault();
    setError(null);
    setSaved(null);
    const maxDuration = seconds(v.maxDuration);
    const maxOfflineUsage = seconds(v.maxOfflineUsage);
    if (maxDuration === undefined) return setError(t('admin.resource_form.badMaxDuration'));
    if (maxOfflineUsage === undefined) return setError(t('admin.resource_form.badOffline'));
    const machine = v.controlType === 'machine';
    const idleTimeoutSeconds = seconds(v.idleTimeout);
    const busyGraceSeconds = seconds(v.busyGrace);
    const warning = v.idleWarningSeconds.trim();
    const idleWarningSeconds = warning === '' ? null : Number(warning);
    if (machine && idleTimeoutSeconds === undefined) return setError(t('admin.resource_form.badIdleTimeout'));
    if (machine && busyGraceSeconds === undefined) return setError(t('admin.resource_form.badBusyGrace'));
    const locked = v.state === 'locked';
    const body: Record<string, unknown> = {
      name: v.name.trim(),
      space: Number(space),
      type: v.type === '' ? null : Number(v.type),
      controlType: v.controlType,
      state: v.state,
      // Unlocking clears the reason, so an old one never shows at the next lock.
      lockReason: locked ? v.lockReason.trim() || null : null,
      // Sent as typed: the hub says what is wrong with it (400 naming the field).
      pulseSeconds: v.pulseSeconds.trim() === '' ? undefined : Number(v.pulseSeconds),
      description: v.description.trim() || null,
      safetyMessage: v.safetyMessage.trim() || null,
      pricePerUsage: v.pricePerUsage.trim().replace(',', '.') || '0',
      pricePerTimeBusy: v.pricePerTimeBusy.trim().replace(',', '.') || '0',
      pricePerTimeBusySeconds: Number(v.pricePerTimeBusySeconds),
      pricePerBooking: v.pricePerBooking.trim().replace(',', '.') || '0',
      pricePerBookingSeconds: Number(v.pricePerBookingSeconds),
      maxDuration,
      maxOfflineUsage,
      // Machines with a busy input on their bridge (docs/HARDWARE.md); doors keep what they have.
      ...(machine
        ? {
            pricePerTimeIdle: v.pricePerTimeIdle.trim().replace(',', '.') || '0',
            pricePerTimeIdleSeconds: Number(v.pricePerTimeIdleSeconds),
            idleTimeoutSeconds: idleTimeoutSeconds === 0 ? null : idleTimeoutSeconds,
            idleWarningSeconds,
            busyGraceSeconds,
          }
        : {}),
      entrance: v.entrance,
      unlockMode: v.unlockMode,
    };
    for (const k of [
      'requiresTraining',
      'canBeBooked',
      'mustBeBooked',
      'exclusiveUsage',
      'visibleForMembers',
    ] as const)
      body[k] = v[k];
    let record: ResourceRecord;
    try {
      record =
        r === null ? await resourcesApi.createResource(body) : await resourcesApi.updateResource(r, body);
    } catch (err) {
      return setError((err as ApiError).message);
    }
    // The courses that unlock it: each changed course is saved with its new list.
    const failed: string[] = [];
    for (const c of courses ?? []) {
      const has = c.resources.includes(record.id);
      const wants = unlocking.has(c.id);
      if (has === wants) continue;
      const resources = wants ? [...c.resources, record.id] : c.resources.filter((id) => id !== record.id);
      await resourcesApi.setCourseResources(c, resources).catch((err: ApiError) => {
        failed.push(`${c.title}: ${err.message}`);
      });
    }
    if (courses?.some((c) => c.resources.includes(record.id) !== unlocking.has(c.id))) await loadCourses();
    if (failed.length)
      setError(t('admin.resource_form.savedButCourses', { name: record.name, failed: failed.join('; ') }));
    else setSaved(t('admin.resource_form.saved', { name: record.name }));
    props.onSaved(record);
  }

  const select = (
    label: string,
    k: keyof FormValues,
    value: string,
    options: readonly (readonly [string, string])[],
  ) => (
    <label>
      {label}
      <select value={value} onChange={(e) => set(k)((e.target as HTMLSelectElement).value)}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
  const check = (k: Flag, label: string) => (
    <label key={k} class="check">
      <input
        type="checkbox"
        checked={v[k]}
        onChange={(e) => set(k)((e.target as HTMLInputElement).checked)}
      />{' '}
      {label}
    </label>
  );
  const textarea = (label: string, k: 'description' | 'safetyMessage' | 'lockReason', hint?: string) => (
    <label>
      {label}
      {hint && <small class="hint">{hint}</small>}
      <textarea rows={2} value={v[k]} onInput={(e) => set(k)((e.target as HTMLTextAreaElement).value)} />
    </label>
  );
  const name = v.name.trim() || t('admin.resource_form.thisResource');

  return (
    <form onSubmit={save} aria-label={title} class="resource-form">
      <h2>{title}</h2>
      <Field
        label={t('admin.resource_form.name')}
        value={v.name}
        set={set('name')}
        required
        maxLength={200}
      />
      {select(
        t('admin.sign_ups.space'),
        'space',
        space,
        props.spaces.map((s) => [String(s.id), s.name]),
      )}
      {select(t('admin.resource_form.type'), 'type', v.type, [
        ['', t('admin.resource_form.noType')],
        ...props.types.map((type): [string, string] => [String(type.id), type.name]),
      ])}
      {select(t('admin.resource_form.controlTypeLabel'), 'controlType', v.controlType, controlTypes())}
      {select(t('admin.trainings.state'), 'state', v.state, [
        ['active', t('admin.resource_form.active')],
        ['locked', t('admin.resource_form.lockedForMaintenance')],
      ])}
      {v.state === 'locked' &&
        textarea(t('admin.resource_form.whyLocked'), 'lockReason', t('admin.resource_form.whyLockedHint'))}
      <Field
        label={t('admin.resource_form.pulseSecondsHowLong')}
        type="number"
        value={v.pulseSeconds}
        set={set('pulseSeconds')}
      />
      {v.controlType === 'door' && (
        <DoorModeFields
          resourceId={r?.id ?? null}
          entrance={v.entrance}
          unlockMode={v.unlockMode}
          setEntrance={set('entrance')}
          setUnlockMode={set('unlockMode')}
        />
      )}
      {textarea(t('admin.resource_form.description'), 'description')}
      {textarea(t('admin.resource_form.safetyMessage'), 'safetyMessage', t('admin.resource_form.safetyHint'))}

      <fieldset class="flags">
        <legend>{t('admin.resource_form.prices')}</legend>
        <div class="price-row">
          <Field
            label={t('admin.resource_form.pricePerUse')}
            inputMode="decimal"
            value={v.pricePerUsage}
            set={set('pricePerUsage')}
          />
        </div>
        <div class="price-row">
          <Field
            label={t('admin.resource_form.pricePerTime')}
            inputMode="decimal"
            value={v.pricePerTimeBusy}
            set={set('pricePerTimeBusy')}
          />
          {select(
            t('admin.resource_form.timeUnit'),
            'pricePerTimeBusySeconds',
            v.pricePerTimeBusySeconds,
            unitOptions(Number(v.pricePerTimeBusySeconds)),
          )}
        </div>
        {v.controlType === 'machine' && (
          <div class="price-row">
            <Field
              label={t('admin.resource_form.pricePerTimeIdle')}
              inputMode="decimal"
              value={v.pricePerTimeIdle}
              set={set('pricePerTimeIdle')}
            />
            {select(
              t('admin.resource_form.idleTimeUnit'),
              'pricePerTimeIdleSeconds',
              v.pricePerTimeIdleSeconds,
              unitOptions(Number(v.pricePerTimeIdleSeconds)),
            )}
          </div>
        )}
        <div class="price-row">
          <Field
            label={t('admin.resource_form.pricePerBooking')}
            inputMode="decimal"
            value={v.pricePerBooking}
            set={set('pricePerBooking')}
          />
          {select(
            t('admin.resource_form.bookingUnit'),
            'pricePerBookingSeconds',
            v.pricePerBookingSeconds,
            unitOptions(Number(v.pricePerBookingSeconds)),
          )}
        </div>
      </fieldset>

      <fieldset class="flags">
        <legend>{t('admin.resource_form.limits')}</legend>
        <Field
          label={t('admin.resource_form.maximumSessionMinutesEmpty')}
          inputMode="numeric"
          value={v.maxDuration}
          set={set('maxDuration')}
        />
        <Field
          label={t('admin.resource_form.offlineUseMinutesA')}
          inputMode="numeric"
          value={v.maxOfflineUsage}
          set={set('maxOfflineUsage')}
        />
        {v.controlType === 'machine' && (
          <>
            <Field
              label={t('admin.resource_form.idleTimeout')}
              inputMode="decimal"
              value={v.idleTimeout}
              set={set('idleTimeout')}
            />
            <Field
              label={t('admin.resource_form.idleWarningSeconds')}
              inputMode="numeric"
              value={v.idleWarningSeconds}
              set={set('idleWarningSeconds')}
            />
            <Field
              label={t('admin.resource_form.busyGrace')}
              inputMode="decimal"
              value={v.busyGrace}
              set={set('busyGrace')}
            />
          </>
        )}
        {check('visibleForMembers', t('admin.resource_form.visibleForMembers'))}
      </fieldset>

      <fieldset class="flags">
        <legend>{t('admin.resource_form.bookings')}</legend>
        {bookingFlags.map((k) => check(k, t(`admin.resource_form.flag.${k}`)))}
        <p class="hint">{t('admin.resource_form.theBookingWindowAnd')}</p>
      </fieldset>

      <fieldset class="flags">
        <legend>{t('admin.resource_form.training')}</legend>
        {check('requiresTraining', t('admin.resource_form.requiresTraining'))}
        {courses === null && <p class="hint">{t('admin.resource_form.loadingTheTrainingCourses')}</p>}
        {courses?.length === 0 && <p class="hint">{t('admin.resource_form.noCourses', { name })}</p>}
        {courses && courses.length > 0 && (
          <p class="hint">{t('admin.resource_form.coursesThatUnlock', { name })}</p>
        )}
        {courses && courses.length > 0 && (
          <ul class="plain" aria-label={t('admin.resource_form.trainingCoursesThatUnlock', { name })}>
            {courses.map((c) => (
              <li key={c.id}>
                <label class="check">
                  <input
                    type="checkbox"
                    checked={unlocking.has(c.id)}
                    onChange={(e) => {
                      const next = new Set(unlocking);
                      if ((e.target as HTMLInputElement).checked) next.add(c.id);
                      else next.delete(c.id);
                      setSaved(null);
                      setUnlocking(next);
                    }}
                  />{' '}
                  {c.title}
                  {c.state !== 'active' ? t('admin.resource_form.inactive') : ''}
                </label>
              </li>
            ))}
          </ul>
        )}
        {v.requiresTraining && courses && unlocking.size === 0 && (
          <p class="hint warn">{t('admin.resource_form.noCourseUnlocks', { name })}</p>
        )}
      </fieldset>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {/* Not a status role: the page's one status line tells of bridge actions. */}
      {saved && (
        <p class="notice" aria-live="polite">
          {saved}
        </p>
      )}
      <button type="submit" class="primary">
        {r ? t('admin.resource_form.save', { name: r.name }) : t('admin.resource_form.create')}
      </button>
    </form>
  );
}
