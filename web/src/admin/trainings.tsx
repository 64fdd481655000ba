import { useEffect, useState } from 'preact/hooks';
import { useAccessPreview } from './access-preview';
import { api } from '../api';
import { Field } from '../field';
import { CourseTrainers } from './course-trainers';
import { memberName } from './admin-api';
import { Alert, EditLink, errorText, useApiCall, useList, useSelection } from './form-parts';
import {
  type MemberTrainingRecord,
  packagesApi,
  validityText,
  type ResourceRecord,
  type ResourceTypeRecord,
  type TrainingCourseRecord,
} from './packages-api';
import { useResourcesAndTypes } from './packages';
import './packages.css';
import { addDays, dayLabel } from './zoned';
import { t } from '../i18n/i18n';

/**
 * Training courses: the resources each unlocks and how long a training stays valid; create,
 * edit, delete; and the members' trainings that expire in the next 30 days.
 */
export function TrainingsPage() {
  const {
    list: courses,
    load,
    error,
  } = useList(() =>
    packagesApi.courses().then((list) => list.sort((a, b) => a.title.localeCompare(b.title))),
  );
  const { resources, types } = useResourcesAndTypes();
  const { selectedId, creating, open, openNew } = useSelection();

  const names = new Map(resources.map((r) => [r.id, r.name]));
  const selected = courses?.find((c) => c.id === selectedId) ?? null;

  return (
    <main class="admin trainings-page">
      <h1>{t('admin.trainings.trainings')}</h1>
      <Alert text={error} />
      <div class="admin-grid">
        <div>
          <section aria-labelledby="courses-h">
            <h2 id="courses-h">{t('admin.trainings.trainingCourses')}</h2>
            <div class="actions">
              <button type="button" class="primary" onClick={openNew}>
                {t('admin.trainings.newCourse')}
              </button>
            </div>
            {courses === null && !error && <p role="status">{t('admin.trainings.loading')}</p>}
            {courses?.length === 0 && <p class="muted">{t('admin.trainings.noCoursesYetA')}</p>}
            {courses && courses.length > 0 && (
              <table class="list" aria-label={t('admin.trainings.trainingCourses')}>
                <thead>
                  <tr>
                    <th scope="col">{t('admin.trainings.course')}</th>
                    <th scope="col">{t('admin.trainings.unlocks')}</th>
                    <th scope="col">{t('admin.trainings.validFor')}</th>
                    <th scope="col">{t('admin.trainings.state')}</th>
                  </tr>
                </thead>
                <tbody>
                  {courses.map((c) => (
                    <tr key={c.id} aria-selected={selectedId === c.id} aria-label={c.title}>
                      <td data-label={t('admin.trainings.course')}>
                        <EditLink name={c.title} onClick={() => open(c.id)} />
                      </td>
                      <td data-label={t('admin.trainings.unlocks')}>
                        {c.resources.map((id) => names.get(id) ?? t('common.resource', { id })).join(', ') ||
                          t('admin.trainings.nothing')}
                      </td>
                      <td data-label={t('admin.trainings.validFor')}>{validityText(c)}</td>
                      <td data-label={t('admin.trainings.state')}>{c.state}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <Expiring courses={courses} />
        </div>
        <p class="small">{t('admin.trainings.aTrainingStaysValid')}</p>
        <section aria-label={t('admin.trainings.courseDetails')}>
          {(creating || selected) && (
            <CourseForm
              key={selected?.id ?? 'new'}
              course={creating ? null : selected}
              resources={resources}
              types={types}
              onSaved={(c) => {
                open(c?.id ?? null);
                void load();
              }}
            />
          )}
          {selected && !creating && <CourseTrainers key={selected.id} course={selected} />}
        </section>
      </div>
    </main>
  );
}

function CourseForm({
  course,
  resources,
  types,
  onSaved,
}: {
  course: TrainingCourseRecord | null;
  resources: ResourceRecord[];
  types: ResourceTypeRecord[];
  onSaved: (c: TrainingCourseRecord | null) => void;
}) {
  const [title, setTitle] = useState(course?.title ?? '');
  const [duration, setDuration] = useState(course?.defaultDuration ? String(course.defaultDuration) : '');
  const [unit, setUnit] = useState(course?.defaultDurationUnit ?? 'year');
  const [unlocks, setUnlocks] = useState<Set<number>>(new Set(course?.resources ?? []));
  const [state, setState] = useState(course?.state ?? 'active');
  const [notes, setNotes] = useState(course?.notes ?? '');
  const { error, run } = useApiCall();
  const [notice, setNotice] = useState<string | null>(null);

  const toggle = (id: number, on: boolean) => {
    const next = new Set(unlocks);
    if (on) next.add(id);
    else next.delete(id);
    setUnlocks(next);
  };
  const usedTypes = types.filter((t) => resources.some((r) => r.type === t.id));

  const access = useAccessPreview();

  async function save(e: Event, previewed = false) {
    e.preventDefault();
    setNotice(null);
    const n = Number(duration);
    const body = {
      title: title.trim(),
      defaultDuration: duration.trim() ? n : null,
      defaultDurationUnit: duration.trim() ? unit : null,
      resources: [...unlocks],
      state,
      notes: notes.trim() || null,
    };
    // A new course is held by nobody yet: only a change of one can change access.
    const change = course
      ? {
          method: 'PUT' as const,
          path: `/training-courses/${course.id}`,
          body: { ...body, lockVersion: course.lockVersion },
        }
      : null;
    if (change && !previewed && (await access.holds(change, () => void save(e, true)))) return;
    await run(async () => {
      const saved = course
        ? await packagesApi.updateCourse(course, body)
        : await packagesApi.createCourse(body);
      if (course) setNotice(t('common.saved'));
      onSaved(saved);
    });
  }
  async function remove() {
    if (!course) return;
    if (await run(() => packagesApi.deleteCourse(course))) onSaved(null);
  }

  const heading = course
    ? t('admin.trainings.edit', { title: course.title })
    : t('admin.trainings.newCourse');
  return (
    <form onSubmit={save} aria-label={heading}>
      <h2>{heading}</h2>
      <Field label={t('admin.trainings.title')} value={title} set={setTitle} required maxLength={200} />
      <div class="fee-row">
        <Field
          label={t('admin.trainings.validFor')}
          placeholder={t('admin.trainings.neverExpires')}
          type="number"
          min={1}
          step={1}
          value={duration}
          set={setDuration}
        />
        <label>
          {t('admin.trainings.unit')}
          <select value={unit} onChange={(e) => setUnit((e.target as HTMLSelectElement).value)}>
            <option value="day">{t('admin.trainings.days')}</option>
            <option value="week">{t('admin.trainings.weeks')}</option>
            <option value="month">{t('admin.trainings.months')}</option>
            <option value="year">{t('admin.trainings.years')}</option>
          </select>
        </label>
      </div>
      <fieldset class="flags">
        <legend>{t('admin.trainings.unlocks')}</legend>
        {resources.length === 0 && <p class="muted">{t('admin.trainings.noResourcesYet')}</p>}
        {resources.map((r) => (
          <label class="check" key={r.id}>
            <input
              type="checkbox"
              checked={unlocks.has(r.id)}
              onChange={(e) => toggle(r.id, (e.target as HTMLInputElement).checked)}
            />
            {r.name}
            {!r.requiresTraining && <span class="small"> {t('admin.trainings.requiresNoTraining')}</span>}
          </label>
        ))}
        {usedTypes.length > 0 && (
          <div class="actions">
            {usedTypes.map((type) => (
              <button
                key={type.id}
                type="button"
                class="secondary"
                onClick={() =>
                  setUnlocks(
                    new Set([...unlocks, ...resources.filter((r) => r.type === type.id).map((r) => r.id)]),
                  )
                }
              >
                {t('admin.trainings.unlockEvery', { type: type.name })}
              </button>
            ))}
          </div>
        )}
      </fieldset>
      {course && (
        <label>
          {t('admin.trainings.state')}
          <select value={state} onChange={(e) => setState((e.target as HTMLSelectElement).value)}>
            <option value="active">{t('admin.trainings.active')}</option>
            <option value="inactive">{t('admin.trainings.inactiveItsTrainingsUnlock')}</option>
          </select>
        </label>
      )}
      <label>
        {t('admin.member_trainings.notes')}
        <textarea rows={2} value={notes} onInput={(e) => setNotes((e.target as HTMLTextAreaElement).value)} />
      </label>
      <Alert text={error} />
      {notice && <p role="status">{notice}</p>}
      {access.panel}
      <div class="actions">
        <button type="submit" class="primary" disabled={access.waiting}>
          {course ? t('admin.trainings.saveCourse') : t('admin.trainings.createCourse')}
        </button>
        {course && (
          <button type="button" class="secondary" onClick={() => void remove()}>
            {t('admin.form_parts.deleteWhat', { what: course.title })}
          </button>
        )}
      </div>
    </form>
  );
}

/** The members' trainings whose last valid day is within the next 30 days (the space's today on). */
function Expiring({ courses }: { courses: TrainingCourseRecord[] | null }) {
  const [list, setList] = useState<{ rows: MemberTrainingRecord[]; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api
      .me()
      .then((me) => packagesApi.spaceToday(me.space))
      .then((today) => packagesApi.expiring(today, addDays(today, 30)))
      .then(({ body, total }) => setList({ rows: body, total: total ?? body.length }))
      .catch((e) => setError(errorText(e)));
  }, []);
  const titles = new Map((courses ?? []).map((c) => [c.id, c.title]));
  return (
    <section aria-labelledby="expiring-h" class="package-part">
      <h2 id="expiring-h">{t('admin.trainings.expiringInTheNext')}</h2>
      <Alert text={error} />
      {list?.rows.length === 0 && <p class="muted">{t('admin.trainings.noTrainingExpiresIn')}</p>}
      {list && courses && list.rows.length > 0 && (
        <table class="list" aria-label={t('admin.trainings.trainingsExpiringInThe')}>
          <thead>
            <tr>
              <th scope="col">{t('admin.trainings.member')}</th>
              <th scope="col">{t('admin.trainings.course')}</th>
              <th scope="col">{t('admin.trainings.validUntil')}</th>
            </tr>
          </thead>
          <tbody>
            {list.rows.map((tr) => {
              const m = tr._embedded?.member;
              return (
                <tr key={tr.id}>
                  <td data-label={t('admin.trainings.member')}>
                    {m ? memberName(m) : t('admin.common.member', { id: tr.member })}
                  </td>
                  <td data-label={t('admin.trainings.course')}>
                    {titles.get(tr.trainingCourse) ?? t('common.course', { id: tr.trainingCourse })}
                  </td>
                  <td data-label={t('admin.trainings.validUntil')}>
                    {tr.untilDate ? dayLabel(tr.untilDate, true) : ''}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {list && list.total > list.rows.length && (
        <p class="muted">{t('admin.trainings.firstOf', { shown: list.rows.length, total: list.total })}</p>
      )}
    </section>
  );
}
