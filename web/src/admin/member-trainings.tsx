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
import { t } from '../i18n/i18n';

/** "valid until Tue 24 Nov 2026", "expired on …", "no expiry" */
export function expiryText(tr: { fromDate: string | null; untilDate: string | null }, today: string): string {
  if (tr.untilDate === null) return t('admin.member_trainings.noExpiry');
  const day = dayLabel(tr.untilDate, true);
  if (tr.untilDate < today) return t('admin.member_trainings.expiredOn', { day });
  return t('admin.member_trainings.validUntil', { day });
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
  async function remove(tr: MemberTrainingRecord, previewed = false) {
    const change = { method: 'DELETE' as const, path: `/members/${member.id}/trainings/${tr.id}` };
    const anyway = t('admin.access_preview.deleteAnyway');
    if (!previewed && (await access.holds(change, () => void remove(tr, true), anyway))) return;
    if (await run(() => packagesApi.deleteTraining(tr))) void load();
  }

  return (
    <section aria-labelledby="member-trainings-h" class="member-trainings">
      <h3 id="member-trainings-h">{t('admin.member_trainings.trainings')}</h3>
      <Alert text={error} />
      {access.panel}
      {list?.length === 0 && <p class="muted">{t('admin.member_trainings.none')}</p>}
      {today && courses && (
        <ul class="rows" aria-label={t('admin.member_trainings.trainingsOf', { name: memberName(member) })}>
          {(list ?? []).map((tr) => {
            const expired = tr.untilDate !== null && tr.untilDate < today;
            return (
              <li key={tr.id}>
                <span>
                  <strong>{title(tr)}</strong>{' '}
                  {t('admin.member_trainings.on', { day: dayLabel(tr.date, true) })}
                  {tr.trainer ? t('admin.member_trainings.by', { trainer: tr.trainer }) : ''},{' '}
                  <span class={expired ? 'expired' : ''}>{expiryText(tr, today)}</span>
                  {tr.notes ? <span class="small"> ({tr.notes})</span> : null}
                </span>
                <button type="button" class="secondary" onClick={() => void remove(tr)}>
                  {t('admin.member_trainings.deleteTraining', { title: title(tr), date: tr.date })}
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
          {t('admin.member_trainings.record', { name: memberName(member) })}
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
    <form
      onSubmit={save}
      aria-label={t('admin.member_trainings.record', { name: memberName(member) })}
      class="sub-form"
    >
      <h4>{t('admin.member_trainings.record', { name: memberName(member) })}</h4>
      {courses.length === 0 && <p class="muted">{t('admin.member_trainings.noActiveCoursesCreate')}</p>}
      <label>
        {t('admin.member_trainings.course')}
        <select value={course} onChange={(e) => setCourse((e.target as HTMLSelectElement).value)} required>
          <option value="">{t('admin.member_trainings.choose')}</option>
          {courses.map((c) => (
            <option key={c.id} value={c.id}>
              {c.title}
            </option>
          ))}
        </select>
      </label>
      {chosen && (
        <p class="small">{t('admin.member_trainings.validFor', { validity: validityText(chosen) })}</p>
      )}
      <div class="fee-row">
        <Field label={t('admin.member_trainings.date')} type="date" value={date} set={setDate} required />
        <Field label={t('admin.member_trainings.trainer')} value={trainer} set={setTrainer} maxLength={200} />
      </div>
      <label>
        {t('admin.member_trainings.notes')}
        <textarea rows={2} value={notes} onInput={(e) => setNotes((e.target as HTMLTextAreaElement).value)} />
      </label>
      <Alert text={error} />
      {access.panel}
      <FormActions
        submit={t('admin.member_trainings.recordTraining')}
        onCancel={() => onDone(false)}
        disabled={access.waiting}
      />
    </form>
  );
}
