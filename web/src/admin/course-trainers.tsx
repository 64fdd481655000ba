import type { CourseTrainerRecord } from '@makerspace/shared';
import { useState } from 'preact/hooks';
import { call } from '../api';
import { memberName } from './admin-api';
import { MemberPicker } from './billing-actions';
import { Alert, useApiCall, useList } from './form-parts';

const trainersApi = {
  list: (course: number) => call<CourseTrainerRecord[]>('GET', `/training-courses/${course}/trainers`),
  add: (course: number, member: number) =>
    call<CourseTrainerRecord>('POST', `/training-courses/${course}/trainers`, { member }),
  remove: (course: number, member: number) =>
    call<void>('DELETE', `/training-courses/${course}/trainers/${member}`),
};

/**
 * The trainers of a course: members who record its trainings themselves, from their phone at the
 * machine. Add and remove them; the trainings they signed stay when their role ends.
 */
export function CourseTrainers({ course }: { course: { id: number; title: string } }) {
  const { list, load, error: loadError } = useList(() => trainersApi.list(course.id), [course.id]);
  const [who, setWho] = useState<number | null>(null);
  const { error, run } = useApiCall();
  async function add(e: Event) {
    e.preventDefault();
    if (who === null) return;
    if (await run(() => trainersApi.add(course.id, who))) {
      setWho(null);
      void load();
    }
  }
  async function remove(t: CourseTrainerRecord) {
    if (await run(() => trainersApi.remove(course.id, t.member))) void load();
  }
  return (
    <section aria-labelledby="trainers-h" class="package-part">
      <h2 id="trainers-h">{`Trainers of ${course.title}`}</h2>
      <p class="small">
        A trainer records this course’s trainings from their phone: “Train someone” on the machine’s page.
      </p>
      <Alert text={loadError ?? error} />
      {list?.length === 0 && <p class="muted">No trainers yet: only admins record this course.</p>}
      {list && list.length > 0 && (
        <ul class="plain" aria-label={`Trainers of ${course.title}`}>
          {list.map((t) => (
            <li key={t.member}>
              {t._embedded ? memberName(t._embedded.member) : `Member ${t.member}`}{' '}
              <button type="button" class="secondary" onClick={() => void remove(t)}>
                {`Remove ${t._embedded ? memberName(t._embedded.member) : `member ${t.member}`}`}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={add} aria-label="Add a trainer">
        <MemberPicker label="New trainer" value={who} onChange={setWho} />
        <div class="actions">
          <button type="submit" class="primary" disabled={who === null}>
            Add trainer
          </button>
        </div>
      </form>
    </section>
  );
}
