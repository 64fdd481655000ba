import type { CourseTrainerRecord } from '@makerspace/shared';
import { useState } from 'preact/hooks';
import { call } from '../api';
import { memberName } from './admin-api';
import { MemberPicker } from './billing-actions';
import { Alert, useApiCall, useList } from './form-parts';
import { t } from '../i18n/i18n';

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
  async function remove(trainer: CourseTrainerRecord) {
    if (await run(() => trainersApi.remove(course.id, trainer.member))) void load();
  }
  return (
    <section aria-labelledby="trainers-h" class="package-part">
      <h2 id="trainers-h">{t('admin.course_trainers.trainersOf', { title: course.title })}</h2>
      <p class="small">{t('admin.course_trainers.aTrainerRecordsThis')}</p>
      <Alert text={loadError ?? error} />
      {list?.length === 0 && <p class="muted">{t('admin.course_trainers.noTrainersYetOnly')}</p>}
      {list && list.length > 0 && (
        <ul class="plain" aria-label={t('admin.course_trainers.trainersOf', { title: course.title })}>
          {list.map((trainer) => (
            <li key={trainer.member}>
              {trainer._embedded
                ? memberName(trainer._embedded.member)
                : t('admin.common.member', { id: trainer.member })}{' '}
              <button type="button" class="secondary" onClick={() => void remove(trainer)}>
                {t('admin.course_trainers.remove', {
                  name: trainer._embedded
                    ? memberName(trainer._embedded.member)
                    : t('admin.common.memberLower', { id: trainer.member }),
                })}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={add} aria-label={t('admin.course_trainers.addATrainer')}>
        <MemberPicker label={t('admin.course_trainers.newTrainer')} value={who} onChange={setWho} />
        <div class="actions">
          <button type="submit" class="primary" disabled={who === null}>
            {t('admin.course_trainers.addTrainer')}
          </button>
        </div>
      </form>
    </section>
  );
}
