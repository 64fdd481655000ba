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

const controlTypes = [
  ['door', 'Door (opens for a few seconds)'],
  ['machine', 'Machine (on until switched off)'],
  ['pos', 'Point of sale'],
  ['other', 'Other'],
] as const;

/** The time units a price counts in (the record keeps seconds). */
const units: [number, string][] = [
  [60, 'per minute'],
  [900, 'per 15 minutes'],
  [1800, 'per 30 minutes'],
  [3600, 'per hour'],
  [86400, 'per day'],
];
const unitOptions = (seconds: number): [string, string][] =>
  (units.some(([s]) => s === seconds)
    ? units
    : [...units, [seconds, `per ${seconds} seconds`] as [number, string]]
  ).map(([s, text]) => [String(s), text]);

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

const bookingFlags: [Flag, string][] = [
  ['canBeBooked', 'Can be booked'],
  ['mustBeBooked', 'Must be booked before use'],
  ['exclusiveUsage', 'Only the member who booked it may use it then'],
];

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
  const title = r ? `Edit ${r.name}` : 'New resource';

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
    if (maxDuration === undefined)
      return setError('Maximum session: a number of minutes, or empty for no limit.');
    if (maxOfflineUsage === undefined)
      return setError('Offline use: a number of minutes, or empty for none.');
    const machine = v.controlType === 'machine';
    const idleTimeoutSeconds = seconds(v.idleTimeout);
    const busyGraceSeconds = seconds(v.busyGrace);
    const warning = v.idleWarningSeconds.trim();
    const idleWarningSeconds = warning === '' ? null : Number(warning);
    if (machine && idleTimeoutSeconds === undefined)
      return setError('Idle switch-off: a number of minutes, or empty for none.');
    if (machine && busyGraceSeconds === undefined)
      return setError('Busy grace: a number of minutes, or empty for none.');
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
    if (failed.length) setError(`Saved ${record.name}, but not every training course: ${failed.join('; ')}`);
    else setSaved(`Saved ${record.name}.`);
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
  const name = v.name.trim() || 'this resource';

  return (
    <form onSubmit={save} aria-label={title} class="resource-form">
      <h2>{title}</h2>
      <Field label="Name" value={v.name} set={set('name')} required maxLength={200} />
      {select(
        'Space',
        'space',
        space,
        props.spaces.map((s) => [String(s.id), s.name]),
      )}
      {select('Type', 'type', v.type, [
        ['', 'No type'],
        ...props.types.map((t): [string, string] => [String(t.id), t.name]),
      ])}
      {select('Control type', 'controlType', v.controlType, [...controlTypes])}
      {select('State', 'state', v.state, [
        ['active', 'Active'],
        ['locked', 'Locked for maintenance'],
      ])}
      {v.state === 'locked' &&
        textarea(
          'Why it is locked',
          'lockReason',
          'Members read this on the machine page while it is locked.',
        )}
      <Field
        label="Pulse seconds (how long a door stays open)"
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
      {textarea('Description', 'description')}
      {textarea(
        'Safety message',
        'safetyMessage',
        'Shown to members as its own notice before they switch on (protective glasses, ventilation…).',
      )}

      <fieldset class="flags">
        <legend>Prices</legend>
        <div class="price-row">
          <Field
            label="Price per use"
            inputMode="decimal"
            value={v.pricePerUsage}
            set={set('pricePerUsage')}
          />
        </div>
        <div class="price-row">
          <Field
            label="Price per time"
            inputMode="decimal"
            value={v.pricePerTimeBusy}
            set={set('pricePerTimeBusy')}
          />
          {select(
            'Time unit',
            'pricePerTimeBusySeconds',
            v.pricePerTimeBusySeconds,
            unitOptions(Number(v.pricePerTimeBusySeconds)),
          )}
        </div>
        {v.controlType === 'machine' && (
          <div class="price-row">
            <Field
              label="Price per time while idle (machines with a busy input)"
              inputMode="decimal"
              value={v.pricePerTimeIdle}
              set={set('pricePerTimeIdle')}
            />
            {select(
              'Idle time unit',
              'pricePerTimeIdleSeconds',
              v.pricePerTimeIdleSeconds,
              unitOptions(Number(v.pricePerTimeIdleSeconds)),
            )}
          </div>
        )}
        <div class="price-row">
          <Field
            label="Price per booking"
            inputMode="decimal"
            value={v.pricePerBooking}
            set={set('pricePerBooking')}
          />
          {select(
            'Booking unit',
            'pricePerBookingSeconds',
            v.pricePerBookingSeconds,
            unitOptions(Number(v.pricePerBookingSeconds)),
          )}
        </div>
      </fieldset>

      <fieldset class="flags">
        <legend>Limits</legend>
        <Field
          label="Maximum session (minutes; empty: no limit)"
          inputMode="numeric"
          value={v.maxDuration}
          set={set('maxDuration')}
        />
        <Field
          label="Offline use (minutes a machine may run while the hub is unreachable; empty: none)"
          inputMode="numeric"
          value={v.maxOfflineUsage}
          set={set('maxOfflineUsage')}
        />
        {v.controlType === 'machine' && (
          <>
            <Field
              label="Idle switch-off (minutes idle before the warning; empty: none; needs a busy input on the bridge)"
              inputMode="decimal"
              value={v.idleTimeout}
              set={set('idleTimeout')}
            />
            <Field
              label="Warning before the idle switch-off (seconds; empty: 60)"
              inputMode="numeric"
              value={v.idleWarningSeconds}
              set={set('idleWarningSeconds')}
            />
            <Field
              label="Busy grace (minutes a busy machine runs past the maximum session; empty: none)"
              inputMode="decimal"
              value={v.busyGrace}
              set={set('busyGrace')}
            />
          </>
        )}
        {check('visibleForMembers', 'Visible to members')}
      </fieldset>

      <fieldset class="flags">
        <legend>Bookings</legend>
        {bookingFlags.map(([k, label]) => check(k, label))}
        <p class="hint">The booking window and daily limits are the space's (Spaces page).</p>
      </fieldset>

      <fieldset class="flags">
        <legend>Training</legend>
        {check('requiresTraining', 'Requires a training')}
        {courses === null && <p class="hint">Loading the training courses…</p>}
        {courses?.length === 0 && (
          <p class="hint">
            No training courses yet: create them first, then tick the ones that unlock {name}.
          </p>
        )}
        {courses && courses.length > 0 && <p class="hint">The courses that unlock {name}:</p>}
        {courses && courses.length > 0 && (
          <ul class="plain" aria-label={`Training courses that unlock ${name}`}>
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
                  {c.state !== 'active' ? ' (inactive)' : ''}
                </label>
              </li>
            ))}
          </ul>
        )}
        {v.requiresTraining && courses && unlocking.size === 0 && (
          <p class="hint warn">No course unlocks {name} yet: only admins may use it.</p>
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
        {r ? `Save ${r.name}` : 'Create resource'}
      </button>
    </form>
  );
}
