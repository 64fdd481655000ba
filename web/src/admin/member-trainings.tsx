import { useEffect, useState } from 'preact/hooks';
import { useAccessPreview } from './access-preview';
import type { MemberRecord } from '../api';
import { Field } from '../field';
import { memberName } from './admin-api';
import { Alert, FormActions, useApiCall, useList } from './form-parts';
import {
  type MemberTrainingRecord,
  packagesApi,
  type TrainingCourseRecord,
  validityText,
} from './packages-api';
import './packages.css';
import { dayLabel } from './zoned';

/** "valid until Tue 24 Nov 2026", "expired on …", "no expiry" */
export function expiryText(t: { fromDate: string | null; untilDate: string | null }, today: string): string {
  if (t.untilDate === null) return 'no expiry';
  if (t.untilDate < today) return `expired on ${dayLabel(t.untilDate, true)}`;
  return `valid until ${dayLabel(t.untilDate, true)}`;
}

/** A member's trainings on the member page: course, date, trainer, expiry; record and delete. */
export function MemberTrainings({ member }: { member: MemberRecord }) {
  const { list, load, error, run } = useList(() => packagesApi.memberTrainings(member.id), [member.id]);
  const [courses, setCourses] = useState<TrainingCourseRecord[] | null>(null);
  const [today, setToday] = useState<string | null>(null);
  const [recording, setRecording] = useState(false);

  useEffect(() => {
    packagesApi
      .courses()
      .then((c) => setCourses(c.sort((a, b) => a.title.localeCompare(b.title))))
      .catch(() => setCourses([]));
    void packagesApi.spaceToday(member.space).then(setToday);
  }, [member.id]);

  const title = (t: MemberTrainingRecord) =>
    courses?.find((c) => c.id === t.trainingCourse)?.title ?? `Course ${t.trainingCourse}`;

  const access = useAccessPreview();
  async function remove(t: MemberTrainingRecord, previewed = false) {
    const change = { method: 'DELETE' as const, path: `/members/${member.id}/trainings/${t.id}` };
    if (!previewed && (await access.holds(change, () => void remove(t, true), 'Delete anyway'))) return;
    if (await run(() => packagesApi.deleteTraining(t))) void load();
  }

  return (
    <section aria-labelledby="member-trainings-h" class="member-trainings">
      <h3 id="member-trainings-h">Trainings</h3>
      <Alert text={error} />
      {access.panel}
      {list?.length === 0 && <p class="muted">None.</p>}
      {today && courses && (
        <ul class="rows" aria-label={`Trainings of ${memberName(member)}`}>
          {(list ?? []).map((t) => {
            const expired = t.untilDate !== null && t.untilDate < today;
            return (
              <li key={t.id}>
                <span>
                  <strong>{title(t)}</strong> on {dayLabel(t.date, true)}
                  {t.trainer ? ` by ${t.trainer}` : ''},{' '}
                  <span class={expired ? 'expired' : ''}>{expiryText(t, today)}</span>
                  {t.notes ? <span class="small"> ({t.notes})</span> : null}
                </span>
                <button type="button" class="secondary" onClick={() => void remove(t)}>
                  {`Delete training ${title(t)} of ${t.date}`}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {recording && today ? (
        <RecordForm
          member={member}
          courses={(courses ?? []).filter((c) => c.state === 'active')}
          today={today}
          onDone={(changed) => {
            setRecording(false);
            if (changed) void load();
          }}
        />
      ) : (
        <button type="button" class="secondary" onClick={() => setRecording(true)}>
          {`Record a training of ${memberName(member)}`}
        </button>
      )}
    </section>
  );
}

function RecordForm({
  member,
  courses,
  today,
  onDone,
}: {
  member: MemberRecord;
  courses: TrainingCourseRecord[];
  today: string;
  onDone: (changed: boolean) => void;
}) {
  const [course, setCourse] = useState('');
  const [date, setDate] = useState(today);
  const [trainer, setTrainer] = useState('');
  const [notes, setNotes] = useState('');
  const { error, run } = useApiCall();
  const chosen = courses.find((c) => String(c.id) === course);

  const access = useAccessPreview();

  async function save(e: Event, previewed = false) {
    e.preventDefault();
    const body = {
      trainingCourse: Number(course),
      date,
      ...(trainer.trim() ? { trainer: trainer.trim() } : {}),
      ...(notes.trim() ? { notes: notes.trim() } : {}),
    };
    const change = { method: 'POST' as const, path: `/members/${member.id}/trainings`, body };
    if (!previewed && (await access.holds(change, () => void save(e, true)))) return;
    const recorded = await run(() => packagesApi.recordTraining(member.id, body));
    if (recorded) onDone(true);
  }

  return (
    <form onSubmit={save} aria-label={`Record a training of ${memberName(member)}`} class="sub-form">
      <h4>{`Record a training of ${memberName(member)}`}</h4>
      {courses.length === 0 && <p class="muted">No active courses: create one on the Trainings page.</p>}
      <label>
        Course
        <select value={course} onChange={(e) => setCourse((e.target as HTMLSelectElement).value)} required>
          <option value="">Choose…</option>
          {courses.map((c) => (
            <option key={c.id} value={c.id}>
              {c.title}
            </option>
          ))}
        </select>
      </label>
      {chosen && <p class="small">{`Valid for ${validityText(chosen)} from the day of the training.`}</p>}
      <div class="fee-row">
        <Field label="Date" type="date" value={date} set={setDate} required />
        <Field label="Trainer" value={trainer} set={setTrainer} maxLength={200} />
      </div>
      <label>
        Notes
        <textarea rows={2} value={notes} onInput={(e) => setNotes((e.target as HTMLTextAreaElement).value)} />
      </label>
      <Alert text={error} />
      {access.panel}
      <FormActions submit="Record training" onCancel={() => onDone(false)} disabled={access.waiting} />
    </form>
  );
}
